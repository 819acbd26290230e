"""The gate every request to a provider passes: ``--rpm`` and ``--tpm`` counted by judgekit,
and the pace the provider's answers set (:mod:`judgekit.providers.pacing`).

A request's tokens are estimated as :attr:`~judgekit.providers.chat.ChatRequest.input_token_bound`
(the bound ``--max-cost`` uses too) plus its ``max_tokens``, and settled to the tokens the
answer reports once it comes; a request that got no answer gives its tokens back, but not
its request.

>>> import asyncio
>>> from judgekit.providers.chat import ChatMessage, ChatRequest
>>> request = ChatRequest(model="m", max_tokens=10,
...                       messages=(ChatMessage(role="user", content="hi"),))
>>> gate = RateGate(4, limits=RateLimits(requests_per_minute=600), endpoint="http://x/v1/")
>>> ticket = asyncio.run(gate.enter(request))
>>> ticket.tokens, gate.pace.in_flight if gate.pace else None
(20, 1)
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from judgekit.errors import ConfigError, ProviderError
from judgekit.providers.chat import Answered, ChatRequest
from judgekit.providers.pacing import PaceController, Ticket
from judgekit.providers.rate_headers import MAX_RESET_S, read_rate_headers
from judgekit.providers.token_bucket import SharedTokenBucket, TokenBucket

__all__ = ["RateGate", "RateLimits"]

# The longest a request waits for a bucket before it looks again.
_LOOK_AGAIN_S = 0.5

# A bucket's take (the wait it imposes) or settle (None).
_BucketChange = Callable[[float], float | None]


@dataclass(frozen=True)
class RateLimits:
    """At most ``requests_per_minute`` requests and ``tokens_per_minute`` tokens a minute
    (None: no such limit); ``shared``: counted with every judgekit process on this machine
    using the same ``JUDGEKIT_HOME`` and endpoint, or in ``shared_bucket``'s buckets (a
    team's store) when given."""

    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    shared: bool = False
    # Where shared buckets live instead of JUDGEKIT_HOME: (per minute, key) → the bucket.
    shared_bucket: Callable[[float, str], TokenBucket] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        for name, value in (
            ("--rpm", self.requests_per_minute),
            ("--tpm", self.tokens_per_minute),
        ):
            if value is not None and value < 1:
                raise ConfigError(f"{name} must be at least 1, got {value}")
        if self.shared and self.requests_per_minute is None and self.tokens_per_minute is None:
            raise ConfigError(
                "--share-rate-limits needs --rpm or --tpm: there is no limit to share"
            )


class RateGate:
    """Admits requests to one endpoint: at most ``concurrency`` in flight (fewer while the
    provider pushes back, unless ``paced`` is False: then exactly that many, whatever the
    answers say), within ``limits``; no header holds requests longer than ``max_hold_s``.
    Use it inside one event loop."""

    def __init__(
        self,
        concurrency: int,
        *,
        limits: RateLimits | None = None,
        endpoint: str = "",
        paced: bool = True,
        max_hold_s: float = MAX_RESET_S,
    ) -> None:
        limits = limits or RateLimits()
        self.pace = PaceController(concurrency, max_hold_s=max_hold_s) if paced else None
        self._fixed = None if paced else asyncio.Semaphore(concurrency)
        self._requests = _bucket(limits.requests_per_minute, limits, f"{endpoint} requests")
        self._tokens = _bucket(limits.tokens_per_minute, limits, f"{endpoint} tokens")
        self._shared = limits.shared
        self._changed: asyncio.Event | None = None  # made inside the loop, renewed when set

    async def enter(self, request: ChatRequest) -> Ticket:
        """Wait until ``request`` may go; the ticket is handed back to one of the exits."""
        tokens = request.input_token_bound + request.max_tokens
        await self._take_buckets(tokens)
        if self.pace is None:
            assert self._fixed is not None
            await self._fixed.acquire()
            return Ticket(0, 0, tokens)
        while True:
            now = time.monotonic()
            full = self.pace.in_flight >= self.pace.limit
            wait = None if full else self.pace.admission_wait(now=now, tokens=tokens)
            if wait is not None and wait <= 0:
                return self.pace.started(now=now, tokens=tokens)
            changed = self._event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), wait)

    async def succeeded(self, ticket: Ticket, answered: Answered) -> None:
        """The request answered: its headers pace the next ones, its usage settles its tokens."""
        used = answered.response.input_tokens + answered.response.output_tokens
        if self.pace is not None:
            headers = answered.rate_headers
            reading = read_rate_headers(headers, now=time.time()) if headers else None
            self.pace.succeeded(ticket, reading, now=time.monotonic())
        self._exit()
        if used > 0:
            await self._settle(ticket.tokens - used)

    async def failed(self, ticket: Ticket, error: ProviderError) -> None:
        """The request failed: a rate limit slows the pace; the tokens are given back."""
        if self.pace is not None and error.rate_limited:
            headers = error.rate_headers
            reading = read_rate_headers(headers, now=time.time()) if headers else None
            self.pace.rate_limited(
                ticket, retry_after_s=error.retry_after_s, headers=reading, now=time.monotonic()
            )
        elif self.pace is not None:
            self.pace.ended(ticket)
        self._exit()
        await self._settle(ticket.tokens)

    def abandoned(self, ticket: Ticket) -> None:
        """The request was given up (cancelled) before it answered."""
        if self.pace is not None:
            self.pace.ended(ticket)
        self._exit()

    def _exit(self) -> None:
        if self._fixed is not None:
            self._fixed.release()
        if self._changed is not None:
            self._changed.set()  # every waiter looks again
            self._changed = None

    def _event(self) -> asyncio.Event:
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    async def _take_buckets(self, tokens: int) -> None:
        for bucket, amount in ((self._requests, 1), (self._tokens, tokens)):
            if bucket is None:
                continue
            # Asked again after each wait: a request settled meanwhile may have given back
            # enough tokens for this one sooner.
            while (wait := await self._call(bucket.take, amount)) > 0:
                await asyncio.sleep(min(wait, _LOOK_AGAIN_S))

    async def _settle(self, tokens: int) -> None:
        if self._tokens is not None and tokens != 0:
            await self._call(self._tokens.settle, tokens)

    async def _call(self, change: _BucketChange, amount: float) -> float:
        # A shared bucket waits for a file lock or the store's: off the event loop.
        if self._shared:
            return await asyncio.to_thread(change, amount) or 0.0
        return change(amount) or 0.0


def _bucket(per_minute: int | None, limits: RateLimits, key: str) -> TokenBucket | None:
    if per_minute is None:
        return None
    if not limits.shared:
        return TokenBucket(per_minute)
    if limits.shared_bucket is not None:
        return limits.shared_bucket(per_minute, key)
    return SharedTokenBucket(per_minute, key=key)
