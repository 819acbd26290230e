"""The OpenAI SDK is built at the first request when --base-url is plain, and the endpoint
known before it is exactly the one the SDK resolves."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import openai
import pytest

from judgekit.providers.chat import ChatMessage, ChatRequest
from judgekit.providers.openai_provider import OpenAIProvider, plain_base_url
from judgekit.testing import FakeLLMServer

URLS = [
    "http://127.0.0.1:41477/v1",
    "http://localhost:8000/v1/",
    "https://api.example.com/openai/v1",
    "http://my-host.internal:8080/v1",
    "http://host/a.b/c~d_e-f",
]


@pytest.mark.parametrize("url", URLS)
def test_a_plain_base_url_is_resolved_as_the_sdk_resolves_it(url: str) -> None:
    sdk = openai.AsyncOpenAI(api_key="test", base_url=url)
    assert plain_base_url(url) == str(sdk.base_url)
    assert OpenAIProvider(api_key="test", base_url=url).endpoint == str(sdk.base_url)


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com",  # no path: the SDK prints it without a slash
        "http://LocalHost/v1",  # the SDK lower-cases the host
        "http://user:secret@host/v1",
        "http://host/v1?key=1",
        "http://host:80/v1",  # the SDK drops a default port
        "https://host:443/v1",
        "http://host:0080/v1",
        "http://host/v%41",
        "http://[::1]:8000/v1",
        "ftp://host/v1",
    ],
)
def test_any_other_address_is_left_to_the_sdk(url: str) -> None:
    assert plain_base_url(url) is None
    sdk = openai.AsyncOpenAI(api_key="test", base_url=url)
    assert OpenAIProvider(api_key="test", base_url=url).endpoint == str(sdk.base_url)


def test_no_base_url_is_the_sdks_default() -> None:
    assert plain_base_url(None) is None
    expected = str(openai.AsyncOpenAI(api_key="test").base_url)
    assert OpenAIProvider(api_key="test").endpoint == expected


def test_the_sdk_is_imported_only_by_the_first_request() -> None:
    script = (
        "import sys\n"
        "from judgekit.providers.openai_provider import OpenAIProvider\n"
        "provider = OpenAIProvider(api_key='test', base_url='http://127.0.0.1:9/v1')\n"
        "print(provider.endpoint, 'openai' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert out == "http://127.0.0.1:9/v1/ False\n"


def test_a_lazily_built_client_answers_and_closes() -> None:
    request = ChatRequest(model="m", messages=(ChatMessage(role="user", content="JSON please"),))

    async def ask(provider: OpenAIProvider) -> str:
        try:
            return (await provider.complete(request)).text
        finally:
            await provider.aclose()

    with FakeLLMServer(reply=lambda r: '{"score": "pass"}') as server:
        provider = OpenAIProvider(api_key="test", base_url=server.openai_base_url)
        assert asyncio.run(ask(provider)) == '{"score": "pass"}'
        assert server.calls == 1
    # Closing a provider that never asked builds no client.
    idle = OpenAIProvider(api_key="test", base_url="http://127.0.0.1:9/v1")
    asyncio.run(idle.aclose())
    assert idle._sdk is None
