"""Fixtures for the provider tests: dummy keys, no way out to the internet, a fake server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from judgekit.providers.chat import ChatMessage, ChatRequest
from judgekit.testing import FakeLLMServer

TEST_KEY = "test-key"


@pytest.fixture(autouse=True)
def _dummy_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dummy keys, and no SDK setting from the environment that could point elsewhere."""
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    for name in (
        "OPENAI_BASE_URL",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_AUTH_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


def chat_request(
    *contents: str, system: str | None = None, json_output: bool = True
) -> ChatRequest:
    """A request of user messages, with an optional system message first."""
    messages = [ChatMessage(role="user", content=content) for content in contents]
    if system is not None:
        messages.insert(0, ChatMessage(role="system", content=system))
    return ChatRequest(model="test-model", messages=tuple(messages), json_output=json_output)
