"""OpenAI's chat completions API, and any server that speaks it (vLLM, Ollama, llama.cpp...).

>>> import asyncio
>>> from judgekit.providers.chat import ChatMessage, ChatRequest
>>> from judgekit.testing import FakeLLMServer
>>> request = ChatRequest(
...     model="gpt-4o-mini", messages=(ChatMessage(role="user", content="Grade it as JSON."),)
... )
>>> async def ask(provider: OpenAIProvider) -> str:
...     try:
...         return (await provider.complete(request)).text
...     finally:
...         await provider.aclose()
>>> with FakeLLMServer(reply=lambda r: '{"score": "pass"}') as server:
...     asyncio.run(ask(OpenAIProvider(api_key="test", base_url=server.openai_base_url)))
'{"score": "pass"}'

``json_output`` sends ``response_format={"type": "json_object"}`` to every server, OpenAI's or
not: vLLM, Ollama and llama.cpp's server honour it, and a server that rejects it answers 400,
which names the option; set ``json_output=False`` for such a server. OpenAI requires the word
"JSON" somewhere in the messages when it is set; judge prompts ask for JSON anyway.
"""

from __future__ import annotations

import importlib.util
import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, Protocol, cast

from judgekit.errors import ConfigError, ProviderError
from judgekit.providers.answers import OpenAICompletion, OpenAILogprobs, read_answer
from judgekit.providers.chat import (
    Answered,
    ChatMessage,
    ChatProvider,
    ChatRequest,
    ChatResponse,
    TokenLogprob,
)
from judgekit.providers.failures import provider_errors
from judgekit.providers.keys import api_key as resolve_api_key
from judgekit.providers.openai_errors import openai_failures
from judgekit.providers.rate_headers import rate_limit_headers

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletionMessageParam

__all__ = ["OpenAICompatibleProvider", "OpenAIProvider"]

# The header `with_raw_response` sets: the SDK then returns the response, not its parse.
_RAW_RESPONSE_HEADER: Final = "X-Stainless-Raw-Response"


class _RawResponse(Protocol):
    """What the SDK's raw response gives: the body read, and the headers."""

    @property
    def content(self) -> bytes: ...

    @property
    def headers(self) -> Mapping[str, str]: ...


class OpenAIProvider(ChatProvider):
    """OpenAI, or an OpenAI-compatible server at ``base_url``.

    The key is ``api_key`` or else ``OPENAI_API_KEY``; with a ``base_url`` and neither, a
    placeholder is sent so local servers work. The SDK's own retries are off: retrying is
    :class:`~judgekit.providers.client.ChatClient`'s job, so attempts are counted and bounded
    in one place.
    """

    name = "openai"
    key_variable: str | None = "OPENAI_API_KEY"

    def __init__(
        self, api_key: str | None = None, base_url: str | None = None, timeout_s: float = 60.0
    ) -> None:
        if importlib.util.find_spec("openai") is None:
            raise ConfigError(
                f"the {self.name} provider needs the openai package: pip install openai"
            )
        self.base_url = base_url
        self._api_key = resolve_api_key(api_key, key_variable=self.key_variable, base_url=base_url)
        self._timeout_s = timeout_s
        self._sdk: AsyncOpenAI | None = None
        # The SDK is slow to import: with a plain --base-url, whose resolved form is known
        # without it, it is built at the first request, so a judge answered wholly from the
        # cache never loads it. Any other address is resolved by the SDK.
        plain = plain_base_url(base_url)
        self._endpoint = plain if plain is not None else str(self._client.base_url)

    @property
    def _client(self) -> AsyncOpenAI:
        if self._sdk is None:
            import openai

            self._sdk = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self.base_url,
                timeout=self._timeout_s,
                max_retries=0,
            )
        return self._sdk

    def _body(self, request: ChatRequest) -> dict[str, object]:
        body: dict[str, object] = {
            "model": request.model,
            "messages": [_openai_message(message) for message in request.messages],
            "temperature": request.temperature,
        }
        # api.openai.com wants max_completion_tokens (its reasoning models refuse
        # max_tokens); many compatible servers only know max_tokens.
        body["max_completion_tokens" if self.base_url is None else "max_tokens"] = (
            request.max_tokens
        )
        if request.json_output:
            body["response_format"] = {"type": "json_object"}
        if request.logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = 5
        return body

    async def complete(self, request: ChatRequest) -> ChatResponse:
        return (await self.answer(request)).response

    async def answer(self, request: ChatRequest) -> Answered:
        started = time.perf_counter()
        with provider_errors(self, openai_failures()):
            # The SDK's own HTTP client and errors, but posting a plain JSON body (the typed
            # `chat.completions.create` spends milliseconds per request walking its parameter
            # types, which at judge concurrency costs more than the wait) and taking the raw
            # response, as `with_raw_response` does (its header asks the SDK for it): the
            # body, checked by read_answer (the SDK would build its objects unchecked), and
            # the headers, whose rate limits pace the next requests.
            answer = await self._client.post(
                "/chat/completions",
                cast_to=bytes,
                body=self._body(request),
                options={"headers": {_RAW_RESPONSE_HEADER: "true"}},
            )
            raw = cast(_RawResponse, answer).content
        headers = rate_limit_headers(cast(_RawResponse, answer).headers)
        latency_s = time.perf_counter() - started
        url = f"{self.endpoint.rstrip('/')}/chat/completions"
        completion = read_answer(raw, OpenAICompletion, provider=self.name, url=url)
        if not completion.choices:
            raise ProviderError(f"{self.name} answered {request.model!r} with no choices ({url})")
        usage = completion.usage
        choice = completion.choices[0]
        response = ChatResponse(
            text=choice.message.content or "",
            model=completion.model or request.model,
            input_tokens=(usage.prompt_tokens or 0) if usage else 0,
            output_tokens=(usage.completion_tokens or 0) if usage else 0,
            latency_s=latency_s,
            tokens=_tokens(choice.logprobs) if request.logprobs else None,
        )
        return Answered(response, headers)

    @property
    def endpoint(self) -> str:
        # The SDK's resolved base URL: --base-url, else the SDK's environment variable
        # (OPENAI_BASE_URL), else the public API.
        return self._endpoint

    async def aclose(self) -> None:
        if self._sdk is not None:
            await self._sdk.close()


class OpenAICompatibleProvider(OpenAIProvider):
    """``local/<model>``: an OpenAI-compatible server at a required ``base_url``.

    Unlike ``openai/<model>`` with a base URL, it never sends ``OPENAI_API_KEY``: a key meant
    for OpenAI has no business going to another server. Pass ``api_key`` if the server wants
    one (the command line's ``--api-key-env`` names the variable holding it).
    """

    name = "local"
    key_variable = None

    def __init__(
        self, api_key: str | None = None, base_url: str | None = None, timeout_s: float = 60.0
    ) -> None:
        if base_url is None:
            raise ConfigError(
                "local/<model> needs --base-url, the OpenAI-compatible server's address "
                "(e.g. http://localhost:8000/v1)"
            )
        super().__init__(api_key=api_key, base_url=base_url, timeout_s=timeout_s)


# An address the SDK keeps as written, but for the slash it adds to the path: lower-case
# scheme and host name, a port, a path of plain segments; no query, credentials or escapes.
# A port is kept unless it is the scheme's default, which the SDK drops.
_PLAIN_URL: Final = re.compile(
    r"(https?)://[a-z0-9.-]+(?::([1-9][0-9]{0,4}))?(/[A-Za-z0-9._~-]+)+/?"
)
_DEFAULT_PORTS: Final = {("http", "80"), ("https", "443")}


def plain_base_url(base_url: str | None) -> str | None:
    """``str(AsyncOpenAI(base_url=base_url).base_url)`` without the SDK, for a plain address;
    None for any other (the SDK resolves it).

    >>> plain_base_url("http://localhost:8000/v1")
    'http://localhost:8000/v1/'
    >>> plain_base_url("http://LocalHost/v1") is None
    True
    """
    plain = _PLAIN_URL.fullmatch(base_url) if base_url is not None else None
    if plain is None or base_url is None or (plain[1], plain[2]) in _DEFAULT_PORTS:
        return None
    return base_url if base_url.endswith("/") else base_url + "/"


def _openai_message(message: ChatMessage) -> ChatCompletionMessageParam:
    # One branch per role: each role is its own TypedDict in the SDK's types.
    if message.role == "system":
        return {"role": "system", "content": message.content}
    if message.role == "user":
        return {"role": "user", "content": message.content}
    return {"role": "assistant", "content": message.content}


def _tokens(logprobs: OpenAILogprobs | None) -> tuple[TokenLogprob, ...] | None:
    """The answer's tokens as the chat layer has them; None when the server gave none."""
    if logprobs is None or logprobs.content is None:
        return None
    return tuple(
        TokenLogprob(
            token=item.token,
            logprob=item.logprob,
            top=tuple((alt.token, alt.logprob) for alt in item.top_logprobs),
        )
        for item in logprobs.content
    )
