"""ChatClient: retries, their bounds and waits, the concurrency bound, and no lost requests."""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from judgekit.errors import ConfigError, ProviderError
from judgekit.providers.chat import ChatResponse
from judgekit.providers.client import ChatClient
from judgekit.providers.openai_provider import OpenAIProvider
from judgekit.testing import FakeLLMServer, FakeRequest, FaultPlan
from tests.providers.conftest import chat_request

T = TypeVar("T")


def client_for(server: FakeLLMServer, **options: float) -> ChatClient:
    return ChatClient(OpenAIProvider(base_url=server.openai_base_url), **options)  # type: ignore[arg-type]


def run(client: ChatClient, work: Callable[[ChatClient], Awaitable[T]]) -> T:
    """Run ``work`` on a fresh event loop, then release the client's connections."""

    async def main() -> T:
        try:
            return await work(client)
        finally:
            await client.aclose()

    return asyncio.run(main())


def complete_one(client: ChatClient) -> Awaitable[ChatResponse]:
    return client.complete(chat_request("hello"))


def test_two_429s_then_success_honours_retry_after(server: FakeLLMServer) -> None:
    server.fail_next(status=429, times=2, retry_after=0.05)
    client = client_for(server)
    started = time.perf_counter()
    response = run(client, complete_one)
    elapsed = time.perf_counter() - started
    assert response.text == '{"reason": "ok", "score": "pass"}'
    assert server.calls == client.attempts == 3
    assert client.requests == 1
    assert elapsed >= 2 * 0.05


def test_retry_after_is_capped_by_max_wait(server: FakeLLMServer) -> None:
    server.fail_next(status=429, retry_after=30)
    started = time.perf_counter()
    run(client_for(server, max_wait_s=0.05), complete_one)
    assert time.perf_counter() - started < 5


def test_server_errors_are_retried(server: FakeLLMServer) -> None:
    server.fail_next(status=500)
    server.fail_next(status=503)
    client = client_for(server)
    assert run(client, complete_one).text
    assert server.status_counts == {500: 1, 503: 1, 200: 1}
    assert client.attempts == 3


def test_a_rejected_key_is_not_retried() -> None:
    with FakeLLMServer(expect_api_key="the-right-key") as server:
        client = client_for(server)
        with pytest.raises(ProviderError, match="set OPENAI_API_KEY") as raised:
            run(client, complete_one)
        assert server.calls == client.attempts == 1
    assert not raised.value.retryable


def test_a_bad_request_is_not_retried(server: FakeLLMServer) -> None:
    server.fail_next(status=400, message="messages: must not be empty")
    client = client_for(server)
    with pytest.raises(ProviderError, match="must not be empty"):
        run(client, complete_one)
    assert server.calls == 1


def test_attempts_are_bounded_and_the_last_error_is_raised() -> None:
    with FakeLLMServer(faults=FaultPlan(http_500_rate=1.0)) as server:
        client = client_for(server, max_attempts=4)
        with pytest.raises(ProviderError, match="HTTP 500") as raised:
            run(client, complete_one)
        assert server.calls == client.attempts == 4
    assert raised.value.retryable


def test_one_attempt_allowed_is_one_call_and_its_error() -> None:
    with FakeLLMServer(faults=FaultPlan(http_500_rate=1.0)) as server:
        client = client_for(server, max_attempts=1)
        with pytest.raises(ProviderError, match="HTTP 500"):
            run(client, complete_one)
        assert server.calls == client.attempts == 1


def test_concurrency_is_bounded() -> None:
    with FakeLLMServer(latency_s=0.1) as server:
        client = client_for(server, concurrency=4)

        async def twenty(client: ChatClient) -> list[ChatResponse]:
            return await asyncio.gather(*(complete_one(client) for _ in range(20)))

        started = time.perf_counter()
        assert len(run(client, twenty)) == 20
        elapsed = time.perf_counter() - started
    assert server.max_in_flight == 4
    assert elapsed >= 5 * 0.1  # 20 requests, 4 at a time, 0.1 s each


def _echo_marker(request: FakeRequest) -> str:
    marker = re.search(r"request-\d+", request.text)
    return f'{{"score": "pass", "reason": "{marker.group() if marker else "none"}"}}'


def test_no_request_is_lost_or_duplicated_under_faults() -> None:
    count = 500
    plan = FaultPlan(http_500_rate=0.10, http_429_rate=0.05, retry_after_s=0.01, seed=11)
    with FakeLLMServer(reply=_echo_marker, faults=plan) as server:
        # 8 attempts: a request fails only after 8 faults in a row, odds 0.15**8 ≈ 3e-7 each.
        client = client_for(server, concurrency=32, max_attempts=8, max_wait_s=0.2)
        markers = [f"request-{i:04d}" for i in range(count)]

        async def all_of_them(client: ChatClient) -> list[ChatResponse]:
            requests = [chat_request(f"Grade {marker} as JSON.") for marker in markers]
            return await asyncio.gather(*(client.complete(r) for r in requests))

        responses = run(client, all_of_them)
    # Each caller got the answer to its own request...
    assert [
        marker in response.text for marker, response in zip(markers, responses, strict=True)
    ] == ([True] * count)
    # ...and the server answered each request exactly once.
    answered = Counter(_echo_marker(request) for request in server.replied)
    assert sorted(answered.values()) == [1] * count
    assert len(server.replied) == server.status_counts[200] == count
    assert server.calls == client.attempts
    assert server.status_counts[500] > 0 and server.status_counts[429] > 0
    assert count < server.calls < 700


def test_malformed_bodies_are_retried_to_success() -> None:
    plan = FaultPlan(malformed_json_rate=0.3, seed=3)
    with FakeLLMServer(faults=plan) as server:
        client = client_for(server, concurrency=8, max_attempts=8)

        async def twenty(client: ChatClient) -> list[ChatResponse]:
            return await asyncio.gather(*(complete_one(client) for _ in range(20)))

        assert len(run(client, twenty)) == 20
        assert len(server.replied) == 20
        assert server.calls > 20


def test_complete_sync_reuses_its_loop_until_closed(server: FakeLLMServer) -> None:
    server.fail_next(status=429, retry_after=0.01)
    client = client_for(server)
    first = client.complete_sync(chat_request("one"))
    second = client.complete_sync(chat_request("two"))
    client.close()
    assert first.text == second.text
    assert client.requests == 2
    assert client.attempts == server.calls == 3


def test_complete_sync_refuses_to_run_inside_an_event_loop(server: FakeLLMServer) -> None:
    client = client_for(server)

    async def inside(client: ChatClient) -> None:
        with pytest.raises(RuntimeError, match=r"await client\.complete"):
            client.complete_sync(chat_request("hello"))

    run(client, inside)


@pytest.mark.parametrize(
    "options",
    [{"concurrency": 0}, {"max_attempts": 0}, {"max_wait_s": -1.0}, {"backoff_s": -0.1}],
)
def test_invalid_options_are_config_errors(
    server: FakeLLMServer, options: dict[str, float]
) -> None:
    with pytest.raises(ConfigError):
        client_for(server, **options)
