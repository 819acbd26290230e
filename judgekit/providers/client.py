"""Bounded concurrency and bounded retries around one provider.

>>> from judgekit.providers.chat import ChatMessage, ChatRequest
>>> from judgekit.providers.openai_provider import OpenAIProvider
>>> from judgekit.testing import FakeLLMServer
>>> request = ChatRequest(
...     model="gpt-4o-mini", messages=(ChatMessage(role="user", content="Grade it as JSON."),)
... )
>>> with FakeLLMServer() as server:
...     server.fail_next(status=503, times=2)
...     client = ChatClient(OpenAIProvider(api_key="test", base_url=server.openai_base_url))
...     client.complete_sync(request).text
...     client.close()
'{"reason": "ok", "score": "pass"}'
>>> client.attempts
3

A failure is retried only when its :class:`~judgekit.errors.ProviderError` is retryable (rate
limits, server errors, timeouts, connection errors), at most ``max_attempts`` calls in all.
Between attempts it waits what the server asked (``Retry-After``), or else a random time up to
an exponentially growing bound ("full jitter", which spreads out clients that failed together),
never more than ``max_wait_s``. The last error is raised as it is.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from judgekit.errors import ConfigError, ProviderError
from judgekit.providers.chat import ChatProvider, ChatRequest, ChatResponse
from judgekit.providers.rate_limits import RateGate, RateLimits

if TYPE_CHECKING:
    from tenacity import RetryCallState  # tenacity loads at the first retry

__all__ = ["ChatClient"]


class ChatClient:
    """Calls ``provider`` with at most ``concurrency`` requests in flight, retrying failures.

    Fewer are in flight while the provider pushes back (rate limits, its headers' quotas
    running out: :mod:`judgekit.providers.pacing`), unless ``paced`` is False; and no more
    start than ``rate_limits`` allow (``--rpm``, ``--tpm``).

    ``backoff_s`` is the first backoff bound; it doubles with each attempt, up to
    ``max_wait_s``. ``attempts`` counts the provider calls made, retries included, and
    ``requests`` the calls to :meth:`complete`. Use one client per event loop.
    """

    MAX_ATTEMPTS = 5
    """How many calls a request may take when not told otherwise."""

    def __init__(
        self,
        provider: ChatProvider,
        *,
        concurrency: int = 8,
        max_attempts: int = MAX_ATTEMPTS,
        max_wait_s: float = 30.0,
        backoff_s: float = 0.05,
        rate_limits: RateLimits | None = None,
        paced: bool = True,
    ) -> None:
        if concurrency < 1:
            raise ConfigError(f"concurrency must be at least 1, got {concurrency}")
        if max_attempts < 1:
            raise ConfigError(f"max_attempts must be at least 1, got {max_attempts}")
        if max_wait_s < 0 or backoff_s < 0:
            raise ConfigError(f"waits must be >= 0, got {max_wait_s=} and {backoff_s=}")
        self.provider = provider
        self.concurrency = concurrency
        self.max_attempts = max_attempts
        self.max_wait_s = max_wait_s
        self.attempts = 0
        self.requests = 0
        # Entered only while a call is in flight, not while backing off, so one request
        # waiting out a Retry-After does not idle a slot the others could use.
        self.gate = RateGate(
            concurrency,
            limits=rate_limits,
            endpoint=provider.endpoint,
            paced=paced,
            max_hold_s=max_wait_s,
        )
        self._backoff_s = backoff_s
        self._backoff: Any = None  # tenacity's wait_random_exponential, made at the first wait
        self._runner: asyncio.Runner | None = None

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Ask the provider, retrying retryable failures; raise the last ``ProviderError``."""
        self.requests += 1
        try:
            return await self._attempt(request)
        except ProviderError as error:
            if not error.retryable or self.max_attempts < 2:
                raise
            return await self._retry(request, error)

    async def _retry(self, request: ChatRequest, first: ProviderError) -> ChatResponse:
        """The attempts after a retryable first failure, which tenacity is handed as its own
        first attempt (so its waits and attempt count are as if it had made it): the retry
        machinery is set up only for the few requests that need it."""
        from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

        failures: list[ProviderError] = [first]

        async def attempt(request: ChatRequest) -> ChatResponse:
            if failures:
                raise failures.pop()
            return await self._attempt(request)

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            retry=retry_if_exception(_is_retryable),
            reraise=True,
        )
        response: ChatResponse = await retrying(attempt, request)
        return response

    async def _attempt(self, request: ChatRequest) -> ChatResponse:
        ticket = await self.gate.enter(request)
        self.attempts += 1
        try:
            answered = await self.provider.answer(request)
        except ProviderError as error:
            await self.gate.failed(ticket, error)
            raise
        except BaseException:
            self.gate.abandoned(ticket)
            raise
        await self.gate.succeeded(ticket, answered)
        return answered.response

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome is not None else None
        if isinstance(error, ProviderError) and error.retry_after_s is not None:
            return min(error.retry_after_s, self.max_wait_s)
        if self._backoff is None:
            from tenacity.wait import wait_random_exponential

            self._backoff = wait_random_exponential(multiplier=self._backoff_s, max=self.max_wait_s)
        return float(self._backoff(state))

    def complete_sync(self, request: ChatRequest) -> ChatResponse:
        """:meth:`complete` for scripts; not for code already inside a running event loop.

        Every call runs on one private event loop, kept between calls, because the provider's
        connection pool belongs to the loop that opened it. Call :meth:`close` when done.
        """
        if _loop_is_running():
            raise RuntimeError(
                "ChatClient.complete_sync() cannot run inside an event loop: "
                "use `await client.complete(request)` there"
            )
        if self._runner is None:
            self._runner = asyncio.Runner()
        return self._runner.run(self.complete(request))

    async def aclose(self) -> None:
        """Release the provider's connections (after using :meth:`complete`)."""
        await self.provider.aclose()

    def close(self) -> None:
        """Release the provider's connections and the private loop (after :meth:`complete_sync`)."""
        if self._runner is None:
            return
        try:
            self._runner.run(self.aclose())
        finally:
            self._runner.close()
            self._runner = None


def _is_retryable(error: BaseException) -> bool:
    return isinstance(error, ProviderError) and error.retryable


def _loop_is_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
