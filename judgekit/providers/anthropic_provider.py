"""Anthropic's messages API.

>>> import asyncio
>>> from judgekit.providers.chat import ChatMessage, ChatRequest
>>> from judgekit.testing import FakeLLMServer
>>> request = ChatRequest(
...     model="claude-haiku-4-5",
...     messages=(
...         ChatMessage(role="system", content="You grade answers. Reply in JSON."),
...         ChatMessage(role="user", content="Is 2 + 2 = 4 correct?"),
...     ),
... )
>>> async def ask(provider: AnthropicProvider) -> str:
...     try:
...         return (await provider.complete(request)).text
...     finally:
...         await provider.aclose()
>>> with FakeLLMServer(reply=lambda r: '{"score": "pass"}') as server:
...     asyncio.run(ask(AnthropicProvider(api_key="test", base_url=server.anthropic_base_url)))
...     server.requests[0].body["system"]
'{"score": "pass"}'
'You grade answers. Reply in JSON.'

System messages go to the API's ``system`` parameter (joined by blank lines when there are
several). The API has no JSON mode to switch on, so ``json_output`` asks nothing more of it:
the judge's prompt asks for JSON, and an answer that is not JSON is the judge's to report.
``temperature`` is not sent: this SDK's ``messages.create`` no longer takes sampling options.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from judgekit.errors import ConfigError
from judgekit.providers.answers import AnthropicMessage, read_answer
from judgekit.providers.anthropic_errors import anthropic_failures
from judgekit.providers.chat import (
    Answered,
    ChatMessage,
    ChatProvider,
    ChatRequest,
    ChatResponse,
)
from judgekit.providers.failures import provider_errors
from judgekit.providers.keys import api_key as resolve_api_key
from judgekit.providers.rate_headers import rate_limit_headers

if TYPE_CHECKING:
    from anthropic.types import MessageParam

__all__ = ["AnthropicProvider"]


class AnthropicProvider(ChatProvider):
    """Anthropic, or an Anthropic-compatible server (a proxy, a gateway) at ``base_url``.

    The key is ``api_key`` or else ``ANTHROPIC_API_KEY``; with a ``base_url`` and neither, a
    placeholder is sent. The SDK's own retries are off: retrying is
    :class:`~judgekit.providers.client.ChatClient`'s job.
    """

    name = "anthropic"
    key_variable = "ANTHROPIC_API_KEY"

    def __init__(
        self, api_key: str | None = None, base_url: str | None = None, timeout_s: float = 60.0
    ) -> None:
        try:
            import anthropic
        except ImportError as exc:
            raise ConfigError(
                "the anthropic provider needs the anthropic package: pip install anthropic"
            ) from exc
        self.base_url = base_url
        self._client = anthropic.AsyncAnthropic(
            api_key=resolve_api_key(api_key, key_variable=self.key_variable, base_url=base_url),
            base_url=base_url,
            timeout=timeout_s,
            max_retries=0,
        )

    async def complete(self, request: ChatRequest) -> ChatResponse:
        return (await self.answer(request)).response

    async def answer(self, request: ChatRequest) -> Answered:
        import anthropic

        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        started = time.perf_counter()
        with provider_errors(self, anthropic_failures()):
            # The raw body, checked by read_answer: the SDK would build its objects unchecked.
            response = await self._client.messages.with_raw_response.create(
                model=request.model,
                max_tokens=request.max_tokens,
                system=system or anthropic.omit,
                messages=[_anthropic_message(m) for m in request.messages if m.role != "system"],
            )
            raw = await response.read()
        headers = rate_limit_headers(response.headers)
        latency_s = time.perf_counter() - started
        url = f"{self.endpoint.rstrip('/')}/v1/messages"
        message = read_answer(raw, AnthropicMessage, provider=self.name, url=url)
        answered = ChatResponse(
            text=message.text,
            model=message.model or request.model,
            input_tokens=message.usage.input_tokens,
            output_tokens=message.usage.output_tokens,
            latency_s=latency_s,
        )
        return Answered(answered, headers)

    @property
    def endpoint(self) -> str:
        # The SDK's resolved base URL: --base-url, else the SDK's environment variable
        # (OPENAI_BASE_URL / ANTHROPIC_BASE_URL), else the public API.
        return str(self._client.base_url)

    async def aclose(self) -> None:
        await self._client.close()


def _anthropic_message(message: ChatMessage) -> MessageParam:
    # Only user and assistant reach here (system messages went to `system=`); one branch per
    # role because each role is its own TypedDict in the SDK's types.
    if message.role == "assistant":
        return {"role": "assistant", "content": message.content}
    return {"role": "user", "content": message.content}
