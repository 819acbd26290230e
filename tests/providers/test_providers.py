"""The OpenAI and Anthropic providers: the real SDKs, talking to the fake server."""

from __future__ import annotations

import asyncio
import socket
import sys

import pytest

from judgekit.errors import ConfigError, ProviderError
from judgekit.providers.anthropic_provider import AnthropicProvider
from judgekit.providers.chat import ChatProvider, ChatRequest, ChatResponse
from judgekit.providers.openai_provider import OpenAICompatibleProvider, OpenAIProvider
from judgekit.testing import FakeLLMServer, FakeRequest, FaultPlan
from tests.providers.conftest import TEST_KEY, chat_request

APIS = ["openai", "anthropic"]


def make(api: str, server: FakeLLMServer, **options: str | None) -> ChatProvider:
    if api == "openai":
        return OpenAIProvider(base_url=server.openai_base_url, **options)
    return AnthropicProvider(base_url=server.anthropic_base_url, **options)


def ask(provider: ChatProvider, request: ChatRequest) -> ChatResponse:
    """One completion on a fresh event loop, closing the provider's connections after."""

    async def once() -> ChatResponse:
        try:
            return await provider.complete(request)
        finally:
            await provider.aclose()

    return asyncio.run(once())


def failure(provider: ChatProvider, request: ChatRequest) -> ProviderError:
    with pytest.raises(ProviderError) as raised:
        ask(provider, request)
    return raised.value


@pytest.mark.parametrize("api", APIS)
def test_text_tokens_model_and_latency(api: str) -> None:
    def reply(request: FakeRequest) -> str:
        return f'{{"score": "pass", "echo": "{request.messages[-1]["content"]}"}}'

    with FakeLLMServer(reply=reply, latency_s=0.02) as server:
        response = ask(make(api, server), chat_request("is this right?"))
    assert response.text == '{"score": "pass", "echo": "is this right?"}'
    assert response.model == "test-model"
    assert response.input_tokens == 3  # the fake server counts words
    assert response.output_tokens == len(response.text.split()) == 6
    assert response.latency_s >= 0.02


@pytest.mark.parametrize("api", APIS)
def test_the_key_comes_from_the_environment(api: str) -> None:
    with FakeLLMServer(expect_api_key=TEST_KEY) as server:
        ask(make(api, server), chat_request("hello"))
        assert server.status_counts == {200: 1}


@pytest.mark.parametrize(
    ("api", "variable"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_a_rejected_key_is_not_retryable_and_names_the_variable(api: str, variable: str) -> None:
    with FakeLLMServer(expect_api_key="the-right-key") as server:
        error = failure(make(api, server), chat_request("hello"))
    assert not error.retryable
    assert "HTTP 401" in str(error)
    assert f"set {variable} (or pass --api-key-env)" in str(error)


def test_openai_sends_the_roles_and_json_response_format(server: FakeLLMServer) -> None:
    ask(make("openai", server), chat_request("grade it", system="you are a judge"))
    body = server.requests[0].body
    assert body["messages"] == [
        {"role": "system", "content": "you are a judge"},
        {"role": "user", "content": "grade it"},
    ]
    assert body["response_format"] == {"type": "json_object"}
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == 1024  # an OpenAI-compatible server: the classic name
    assert "max_completion_tokens" not in body


def test_openai_without_json_output_sends_no_response_format(server: FakeLLMServer) -> None:
    ask(make("openai", server), chat_request("free text", json_output=False))
    assert "response_format" not in server.requests[0].body


def test_openai_itself_gets_max_completion_tokens(
    server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With no base_url the provider speaks to OpenAI; the SDK's own OPENAI_BASE_URL setting
    # lets the test keep that request on the loopback.
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    ask(OpenAIProvider(), chat_request("hello"))
    body = server.requests[0].body
    assert body["max_completion_tokens"] == 1024
    assert "max_tokens" not in body


def test_anthropic_puts_system_messages_in_system(server: FakeLLMServer) -> None:
    request = chat_request("first", "second", system="you are a judge")
    ask(make("anthropic", server), request)
    body = server.requests[0].body
    assert body["system"] == "you are a judge"
    assert body["messages"] == [
        {"role": "user", "content": "first"},
        {"role": "user", "content": "second"},
    ]
    assert body["max_tokens"] == 1024
    assert server.requests[0].messages[0] == {"role": "system", "content": "you are a judge"}


def test_anthropic_without_system_messages_sends_no_system(server: FakeLLMServer) -> None:
    ask(make("anthropic", server), chat_request("hello"))
    assert "system" not in server.requests[0].body


@pytest.mark.parametrize("api", APIS)
def test_server_errors_are_retryable_and_carry_retry_after(api: str, server: FakeLLMServer) -> None:
    server.fail_next(status=429, retry_after=1.5)
    error = failure(make(api, server), chat_request("hello"))
    assert error.retryable
    assert error.retry_after_s == 1.5
    assert "HTTP 429" in str(error)
    server.fail_next(status=500)
    assert failure(make(api, server), chat_request("hello")).retryable
    assert server.calls == 2  # the SDKs' own retries are off


@pytest.mark.parametrize("api", APIS)
def test_bad_requests_and_unknown_models_are_not_retryable(api: str, server: FakeLLMServer) -> None:
    server.fail_next(status=400, message="max_tokens is too large")
    error = failure(make(api, server), chat_request("hello"))
    assert not error.retryable
    assert "max_tokens is too large" in str(error)
    server.fail_next(status=404, message="model: test-model")
    error = failure(make(api, server), chat_request("hello"))
    assert not error.retryable
    assert "check the model name" in str(error)


@pytest.mark.parametrize("api", APIS)
def test_a_body_that_is_not_json_is_a_retryable_error(api: str) -> None:
    with FakeLLMServer(faults=FaultPlan(malformed_json_rate=1.0)) as server:
        error = failure(make(api, server), chat_request("hello"))
    assert error.retryable
    assert "malformed response" in str(error)
    assert isinstance(error.__cause__, ValueError)


@pytest.mark.parametrize("api", APIS)
def test_an_unreachable_server_is_a_retryable_error(api: str) -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}" + ("/v1" if api == "openai" else "")
    provider: ChatProvider = (
        OpenAIProvider(base_url=base_url)
        if api == "openai"
        else AnthropicProvider(base_url=base_url)
    )
    error = failure(provider, chat_request("hello"))
    assert error.retryable
    assert "could not reach" in str(error)
    assert f"127.0.0.1:{port}" in str(error)


@pytest.mark.parametrize(
    ("api", "variable"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_no_key_and_no_base_url_is_a_config_error(
    api: str, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(variable)
    provider_class = OpenAIProvider if api == "openai" else AnthropicProvider
    with pytest.raises(
        ConfigError, match=f"set {variable} \\(or pass --api-key-env\\) or --base-url"
    ):
        provider_class()


@pytest.mark.parametrize(
    ("api", "variable"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_a_local_server_without_a_key_gets_a_placeholder(
    api: str, variable: str, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(variable)
    ask(make(api, server), chat_request("hello"))
    assert server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_an_explicit_key_wins_over_the_environment() -> None:
    with FakeLLMServer(expect_api_key="explicit") as server:
        ask(make("openai", server, api_key="explicit"), chat_request("hello"))
        ask(make("anthropic", server, api_key="explicit"), chat_request("hello"))
        assert server.status_counts == {200: 2}


def test_local_provider_never_sends_the_openai_key(server: FakeLLMServer) -> None:
    provider = OpenAICompatibleProvider(base_url=server.openai_base_url)
    ask(provider, chat_request("hello"))
    assert server.requests[0].headers["authorization"] == "Bearer not-needed"
    ask(
        OpenAICompatibleProvider(api_key="server-key", base_url=server.openai_base_url),
        chat_request("hi"),
    )
    assert server.requests[1].headers["authorization"] == "Bearer server-key"
    with pytest.raises(ConfigError, match="local/<model> needs --base-url"):
        OpenAICompatibleProvider()


def test_local_provider_errors_speak_of_the_server() -> None:
    with FakeLLMServer(expect_api_key="server-key") as server:
        error = failure(
            OpenAICompatibleProvider(base_url=server.openai_base_url), chat_request("hi")
        )
    assert str(error).startswith("The OpenAI-compatible server rejected the API key (HTTP 401")
    assert "pass --api-key-env" in str(error)


@pytest.mark.parametrize(("api", "package"), [("openai", "openai"), ("anthropic", "anthropic")])
def test_a_missing_sdk_names_the_pip_install(
    api: str, package: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, package, None)  # `import package` now raises ImportError
    provider_class = OpenAIProvider if api == "openai" else AnthropicProvider
    with pytest.raises(ConfigError, match=f"pip install {package}"):
        provider_class(base_url="http://127.0.0.1:9")
