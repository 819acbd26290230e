"""The client at the provider's pace: the providers hand over their answers' rate-limit
headers, a 429 carries its own, the gate holds and halves, hostile headers never stall it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping

import pytest

from judgekit.errors import ConfigError, ProviderError
from judgekit.providers.anthropic_provider import AnthropicProvider
from judgekit.providers.chat import Answered, ChatProvider, ChatRequest, ChatResponse
from judgekit.providers.client import ChatClient
from judgekit.providers.openai_provider import OpenAIProvider
from judgekit.providers.rate_limits import RateLimits
from judgekit.testing import FakeLLMServer, RateLimit
from tests.providers.conftest import chat_request


def answer_of(provider: ChatProvider, request: ChatRequest) -> Answered:
    async def ask() -> Answered:
        try:
            return await provider.answer(request)
        finally:
            await provider.aclose()

    return asyncio.run(ask())


def test_the_openai_provider_hands_over_the_rate_limit_headers() -> None:
    limit = RateLimit(requests_per_minute=60, tokens_per_minute=6000, window_s=60.0)
    with FakeLLMServer(rate_limit=limit) as server:
        provider = OpenAIProvider(base_url=server.openai_base_url)
        answered = answer_of(provider, chat_request("Grade it as JSON."))
    headers = answered.rate_headers
    assert headers["x-ratelimit-limit-requests"] == "60"
    assert headers["x-ratelimit-remaining-requests"] == "59"
    # 4 words of input and the request's max_tokens of 1024.
    assert headers["x-ratelimit-remaining-tokens"] == str(6000 - 4 - 1024)
    assert set(headers) == {
        f"x-ratelimit-{part}-{kind}"
        for part in ("limit", "remaining", "reset")
        for kind in ("requests", "tokens")
    }
    assert answered.response.text == '{"reason": "ok", "score": "pass"}'


def test_the_anthropic_provider_hands_over_the_rate_limit_headers() -> None:
    with FakeLLMServer(rate_limit=RateLimit(requests_per_minute=60)) as server:
        provider = AnthropicProvider(base_url=server.anthropic_base_url)
        answered = answer_of(provider, chat_request("Grade it as JSON."))
    assert answered.rate_headers["anthropic-ratelimit-requests-remaining"] == "59"
    assert answered.rate_headers["anthropic-ratelimit-requests-reset"].endswith("Z")


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_429_is_marked_rate_limited_with_its_headers(api: str) -> None:
    with FakeLLMServer(rate_limit=RateLimit(requests_per_minute=1)) as server:
        provider: ChatProvider = (
            OpenAIProvider(base_url=server.openai_base_url)
            if api == "openai"
            else AnthropicProvider(base_url=server.anthropic_base_url)
        )
        request = chat_request("Grade it as JSON.")

        async def twice() -> None:
            try:
                await provider.answer(request)
                await provider.answer(request)
            finally:
                await provider.aclose()

        with pytest.raises(ProviderError) as raised:
            asyncio.run(twice())
    error = raised.value
    assert error.rate_limited and error.retryable
    assert error.retry_after_s is not None and 0 < error.retry_after_s <= 60
    remaining = (
        "x-ratelimit-remaining-requests"
        if api == "openai"
        else "anthropic-ratelimit-requests-remaining"
    )
    assert error.rate_headers[remaining] == "0"
    assert "retry-after" in error.rate_headers


def run_many(client: ChatClient, count: int) -> list[ChatResponse]:
    async def main() -> list[ChatResponse]:
        try:
            request = chat_request("Grade it as JSON.")
            return list(await asyncio.gather(*(client.complete(request) for _ in range(count))))
        finally:
            await client.aclose()

    return asyncio.run(main())


def test_a_limited_server_is_judged_with_no_429_and_nothing_lost() -> None:
    limit = RateLimit(requests_per_minute=1200, window_s=1.0)  # 20 a window
    with FakeLLMServer(latency_s=0.01, rate_limit=limit) as server:
        client = ChatClient(OpenAIProvider(base_url=server.openai_base_url), concurrency=16)
        answers = run_many(client, 60)
        counts = server.status_counts
        assert server.rate_window is not None
        windows = server.rate_window.admitted_per_window
    assert len(answers) == 60
    assert counts.get(429, 0) <= 1
    assert max(windows) <= 20


def test_unpaced_the_same_server_answers_429_again_and_again() -> None:
    limit = RateLimit(requests_per_minute=1200, window_s=1.0)
    with FakeLLMServer(latency_s=0.01, rate_limit=limit) as server:
        client = ChatClient(
            OpenAIProvider(base_url=server.openai_base_url),
            concurrency=16,
            paced=False,
            max_attempts=10,
        )
        run_many(client, 60)
        counts = server.status_counts
    assert counts[200] == 60 and counts[429] >= 10


def test_a_429_halves_the_concurrency() -> None:
    with FakeLLMServer() as server:
        server.fail_next(status=429, retry_after=0.01)
        client = ChatClient(OpenAIProvider(base_url=server.openai_base_url), concurrency=8)
        run_many(client, 1)
    assert client.gate.pace is not None
    assert (client.gate.pace.limit, client.gate.pace.decreases) == (4, 1)


def test_tpm_settles_each_request_to_its_usage() -> None:
    with FakeLLMServer() as server:
        # Each request bounds itself at 17 + 8 input and 1024 output tokens: 1049; it uses
        # 4 + 6 (the verdict's words).
        client = ChatClient(
            OpenAIProvider(base_url=server.openai_base_url),
            rate_limits=RateLimits(tokens_per_minute=60 * 1049),
        )
        started = time.monotonic()
        run_many(client, 5)
        elapsed = time.monotonic() - started
    # Without settling, five requests of 1049 from a bucket of 1049 refilling 1049 a
    # second would take 4 s; settled, each gives back 1039 as it answers, and the next
    # request looks again within 0.5 s.
    assert elapsed < 3.0


class HostileHeaders(ChatProvider):
    """A provider whose every answer carries the given rate-limit headers."""

    name = "hostile"

    def __init__(self, headers: Mapping[str, str]) -> None:
        self.headers = dict(headers)

    async def complete(self, request: ChatRequest) -> ChatResponse:
        return ChatResponse(text="{}", model=request.model)

    async def answer(self, request: ChatRequest) -> Answered:
        return Answered(await self.complete(request), self.headers)


@pytest.mark.parametrize(
    "headers",
    [
        {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "99999999h"},
        {
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "2999-01-01T00:00:00Z",
        },
        {"x-ratelimit-remaining-requests": "-4", "x-ratelimit-reset-requests": "-1s"},
        {"x-ratelimit-remaining-requests": "NaN", "x-ratelimit-reset-requests": "NaN"},
        {"x-ratelimit-remaining-tokens": "1e999", "x-ratelimit-reset-tokens": "inf"},
        {"anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": "🙂"},
        {"x-ratelimit-limit-requests": "0", "x-ratelimit-remaining-requests": "0"},
    ],
)
def test_hostile_headers_never_stall_the_client(headers: Mapping[str, str]) -> None:
    client = ChatClient(HostileHeaders(headers), concurrency=4, max_wait_s=0.2)
    started = time.monotonic()
    answers = run_many(client, 12)
    assert len(answers) == 12
    # At most one capped hold of 0.2 s per round of answers, never the header's word.
    assert time.monotonic() - started < 3.0


def test_rate_limits_refuse_values_below_one() -> None:
    with pytest.raises(ConfigError, match="--rpm must be at least 1, got 0"):
        RateLimits(requests_per_minute=0)
    with pytest.raises(ConfigError, match="--share-rate-limits needs --rpm or --tpm"):
        RateLimits(shared=True)


def test_a_retry_after_holds_the_requests_that_start_after_it_too() -> None:
    with FakeLLMServer() as server:
        server.fail_next(status=429, retry_after=0.5)
        client = ChatClient(OpenAIProvider(base_url=server.openai_base_url), concurrency=4)
        request = chat_request("Grade it as JSON.")

        async def main() -> float:
            try:
                first = asyncio.create_task(client.complete(request))
                while server.status_counts.get(429) is None:
                    await asyncio.sleep(0.005)
                started = time.monotonic()
                await client.complete(request)  # a new request, after the 429
                waited = time.monotonic() - started
                await first
                return waited
            finally:
                await client.aclose()

        waited = asyncio.run(main())
        assert server.status_counts == {429: 1, 200: 2}
    assert waited >= 0.4
