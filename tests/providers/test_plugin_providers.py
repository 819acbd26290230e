"""Providers from outside judgekit: registered in-process or installed as entry points."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.errors import ConfigError
from judgekit.providers import registry
from judgekit.providers.chat import ChatProvider, ChatRequest, ChatResponse
from tests.conftest import REPO


class RulesProvider(ChatProvider):
    """A provider with no network: passes every answer that mentions a refund."""

    name = "rules"

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None) -> None:
        self.base_url = base_url

    async def complete(self, request: ChatRequest) -> ChatResponse:
        text = request.messages[-1].content
        score = "pass" if "refund" in text.lower() else "fail"
        return ChatResponse(
            text=json.dumps({"reason": "rule", "score": score}), model=request.model
        )


@pytest.fixture
def rules_registered() -> Iterator[None]:
    registry.register_provider("rules", RulesProvider)
    yield
    registry._registered.pop("rules", None)


def test_a_registered_provider_judges_through_the_command_line(
    rules_registered: None, tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        main,
        [
            "judge",
            str(REPO / "examples" / "runs" / "shop.jsonl"),
            "--rubric",
            str(REPO / "rubrics" / "goal_completion.yaml"),
            "--tasks",
            str(REPO / "tasks"),
            "--model",
            "rules/v1",
            "--out",
            str(tmp_path),
            "--no-store",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "verdicts.jsonl").read_text().splitlines()
    verdicts = [json.loads(line) for line in lines]
    assert {v["model"] for v in verdicts} == {"rules/v1"}
    assert all(v["status"] == "scored" for v in verdicts)
    assert registry.provider_names() == ("anthropic", "local", "openai", "rules")


def test_an_installed_entry_point_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rules_plugin.py").write_text(
        "from tests.providers.test_plugin_providers import RulesProvider\n"
        "class Installed(RulesProvider):\n    name = 'installed'\n"
    )
    info = tmp_path / "rules_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rules-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[judgekit.providers]\ninstalled = rules_plugin:Installed\nbroken = rules_plugin:Missing\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    assert registry.parse_model_name("installed/model-x") == ("installed", "model-x")
    provider = registry.make_provider("installed", base_url="http://127.0.0.1:9")
    assert type(provider).__name__ == "Installed"
    with pytest.raises(
        ConfigError,
        match=r"provider 'broken' from entry point 'rules_plugin:Missing' failed to load",
    ):
        registry.make_provider("broken")
    sys.modules.pop("rules_plugin", None)


def test_an_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(
        ConfigError, match=r"unknown provider 'gemini'; known: anthropic, local, openai \("
    ):
        registry.parse_model_name("gemini/pro")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("openai", "'openai' is a built-in provider and cannot be replaced"),
        ("my/provider", "a provider name is one word without a slash, got 'my/provider'"),
    ],
)
def test_bad_registrations_are_refused(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        registry.register_provider(name, RulesProvider)
