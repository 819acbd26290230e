"""How many requests may be in flight, and when the next may start, at the provider's pace.

The number in flight starts at the configured concurrency (the ceiling, never passed) and
adapts as TCP's congestion window does: one more after each round of successes (as many
successes as requests allowed in flight), half as many (never fewer than one) after a rate
limit (HTTP 429) or an answer whose headers say a quota is running low (at most
:data:`LOW_SHARE` of its limit left). One episode of congestion halves once: the answers of
requests that started before the last decrease do not decrease again.

The headers' counts (:mod:`judgekit.providers.rate_headers`) are also reckoned forward: what
an answer said was left, less the requests (and their tokens) started since. When nothing is
left, new requests wait for the quota's reset instead of colliding with it; a ``Retry-After``
holds them too. No wait is longer than :data:`~judgekit.providers.rate_headers.MAX_RESET_S`.

No hold is longer than ``max_hold_s`` (the client's longest wait between attempts). The
controller is pure: the caller says what time it is (any monotonic clock, in seconds).

>>> pace = PaceController(8)
>>> ticket = pace.started(now=0.0, tokens=100)
>>> pace.rate_limited(ticket, retry_after_s=2.0, headers=None, now=0.5)
>>> pace.limit, pace.admission_wait(now=0.5, tokens=100)
(4, 2.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from judgekit.providers.rate_headers import MAX_RESET_S, Quota, RateHeaders

__all__ = ["LOW_SHARE", "PaceController", "Ticket"]

LOW_SHARE: Final = 0.1
"""A quota with at most this share of its limit left is running low: slow down."""


@dataclass(frozen=True)
class Ticket:
    """A request that started: its number in start order, the episode it started in, and
    the tokens it took."""

    number: int
    generation: int
    tokens: int


@dataclass
class _Estimate:
    """What is left of a quota until ``resets_at``, as reckoned from the last answers."""

    remaining: float
    resets_at: float


class PaceController:
    """The concurrency limit (1 to ``maximum``) and the holds, updated by each answer."""

    def __init__(self, maximum: int, *, max_hold_s: float = MAX_RESET_S) -> None:
        if maximum < 1:
            raise ValueError(f"maximum must be at least 1, got {maximum}")
        self.max_hold_s = min(max(max_hold_s, 0.0), MAX_RESET_S)
        self.maximum = maximum
        self.limit = maximum
        self._flying: dict[int, int] = {}  # the tickets in flight: number -> tokens
        self._started = 0
        self.decreases = 0
        self._successes = 0
        self._generation = 0
        self._hold_until = 0.0
        self._requests: _Estimate | None = None
        self._tokens: _Estimate | None = None

    @property
    def in_flight(self) -> int:
        """Requests started and not yet answered."""
        return len(self._flying)

    def admission_wait(self, *, now: float, tokens: int) -> float:
        """Seconds before a request of ``tokens`` may start (0: now), the concurrency limit
        aside: a ``Retry-After`` still running, or a quota reckoned spent until its reset."""
        wait = self._hold_until - now
        for name, need in (("_requests", 1), ("_tokens", tokens)):
            estimate: _Estimate | None = getattr(self, name)
            if estimate is None:
                continue
            if now >= estimate.resets_at:
                setattr(self, name, None)  # refilled: the next answer says how far
            elif estimate.remaining < need:
                wait = max(wait, estimate.resets_at - now)
        return max(wait, 0.0)

    def started(self, *, now: float, tokens: int) -> Ticket:
        """A request of ``tokens`` (estimated) starts now."""
        self._started += 1
        self._flying[self._started] = tokens
        for estimate, need in ((self._requests, 1), (self._tokens, tokens)):
            if estimate is not None:
                estimate.remaining -= need
        return Ticket(self._started, self._generation, tokens)

    def succeeded(self, ticket: Ticket, headers: RateHeaders | None, *, now: float) -> None:
        """The request answered; ``headers`` are its rate-limit headers, if any."""
        self.ended(ticket)
        self._successes += 1
        if self._successes >= self.limit:
            self.limit = min(self.maximum, self.limit + 1)
            self._successes = 0
        if headers is not None and self._reckon(headers, ticket, now):
            self._decrease(ticket)

    def rate_limited(
        self,
        ticket: Ticket,
        *,
        retry_after_s: float | None,
        headers: RateHeaders | None,
        now: float,
    ) -> None:
        """The request was refused for the rate (HTTP 429)."""
        self.ended(ticket)
        self._decrease(ticket)
        if retry_after_s is not None and retry_after_s > 0:
            self._hold_until = max(self._hold_until, now + min(retry_after_s, self.max_hold_s))
        if headers is not None:
            self._reckon(headers, ticket, now)

    def ended(self, ticket: Ticket) -> None:
        """The request failed otherwise, or was given up: it says nothing about the pace."""
        self._flying.pop(ticket.number, None)

    def _decrease(self, ticket: Ticket) -> None:
        if ticket.generation < self._generation:
            return  # started before the last decrease: the same congestion, already answered
        self.limit = max(1, self.limit // 2)
        self._successes = 0
        self._generation += 1
        self.decreases += 1

    def _reckon(self, headers: RateHeaders, ticket: Ticket, now: float) -> bool:
        """Update the estimates from an answer's headers; True when a quota runs low."""
        # The server counted the quota when the request arrived: the requests in flight
        # that started after it may not be in its count yet (those before it are).
        later = [tokens for number, tokens in self._flying.items() if number > ticket.number]
        low = False
        if headers.requests is not None:
            self._requests = self._merged(self._requests, headers.requests, len(later), now)
            low = _running_low(headers.requests)
        # Of the token quotas (Anthropic's tokens, input and output), the scarcest counts.
        merged = [self._merged(self._tokens, quota, sum(later), now) for quota in headers.tokens]
        found = [estimate for estimate in merged if estimate is not None]
        if found:
            self._tokens = min(found, key=lambda estimate: estimate.remaining)
        return low or any(_running_low(quota) for quota in headers.tokens)

    def _merged(
        self, current: _Estimate | None, quota: Quota, in_flight: int, now: float
    ) -> _Estimate | None:
        if quota.remaining is None or quota.reset_s is None:
            return current
        # What the server had left, less what the later requests in flight take from it.
        remaining = quota.remaining - in_flight
        resets_at = now + min(quota.reset_s, self.max_hold_s)
        if current is None or now >= current.resets_at or resets_at > current.resets_at + 1.0:
            return _Estimate(remaining, resets_at)  # a new window
        # The same window: answers arrive out of order, and the lowest count is the newest.
        return _Estimate(min(current.remaining, remaining), max(current.resets_at, resets_at))


def _running_low(quota: Quota) -> bool:
    if quota.remaining is None:
        return False
    if quota.remaining == 0:
        return True
    return (
        quota.limit is not None and quota.limit > 0 and quota.remaining <= LOW_SHARE * quota.limit
    )
