"""The rate-limit headers OpenAI and Anthropic send with every answer, read into one shape.

OpenAI (and servers copying it) sends ``x-ratelimit-{limit,remaining,reset}-{requests,tokens}``,
the reset as a duration (``"1s"``, ``"6m0s"``, ``"250ms"``, ``"1.5s"``); Anthropic sends
``anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}``,
the reset as an RFC 3339 time. A value that does not parse, is negative, not finite or
absurd is ignored, as if the header were absent: a header never crashes a judging, and a
reset is never further away than :data:`MAX_RESET_S`.

>>> reading = read_rate_headers(
...     {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s",
...      "x-ratelimit-limit-tokens": "1000", "x-ratelimit-remaining-tokens": "999"},
...     now=0.0,
... )
>>> reading.requests
Quota(limit=None, remaining=0, reset_s=120.0)
>>> [quota.remaining for quota in reading.tokens]
[999]
>>> parse_duration("1h2m3.5s"), parse_duration("250ms"), parse_duration("soon")
(3723.5, 0.25, None)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Final

__all__ = [
    "MAX_RESET_S",
    "RATE_HEADER_PREFIXES",
    "Quota",
    "RateHeaders",
    "parse_duration",
    "parse_reset",
    "rate_limit_headers",
    "read_rate_headers",
]

MAX_RESET_S: Final = 120.0
"""The longest wait a header can impose: a reset further away is read as this far. A server
that says "come back in a year" holds judging two minutes at a time, never forever."""

# A count larger than this is no real quota (and would only make arithmetic slow).
_MAX_COUNT: Final = 10**15

RATE_HEADER_PREFIXES: Final = ("x-ratelimit-", "anthropic-ratelimit-", "retry-after")
"""The names (lower-case prefixes) of the headers that speak of rate limits."""

# Go's time.Duration text, as OpenAI writes it: "6m0s", "1.5s", "250ms", "1h2m3s".
_DURATION: Final = re.compile(r"(?:[0-9]+(?:\.[0-9]+)?(?:h|m|s|ms|us|µs|ns))+")
_PART: Final = re.compile(r"([0-9]+(?:\.[0-9]+)?)(h|ms|m|s|us|µs|ns)")
# A plain number as the headers write one: ASCII digits, no sign, no exponent.
_NUMBER: Final = re.compile(r"[0-9]{1,16}(?:\.[0-9]{1,16})?")
_UNIT_S: Final = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}

_PARTS: Final = ("limit", "remaining", "reset")

# Each quota's headers (limit, remaining, reset), and whether it counts requests or tokens.
_QUOTA_HEADERS: Final = tuple(
    (kind, tuple(name.format(part) for part in _PARTS))
    for kind, name in (
        ("requests", "x-ratelimit-{}-requests"),
        ("requests", "anthropic-ratelimit-requests-{}"),
        ("tokens", "x-ratelimit-{}-tokens"),
        ("tokens", "anthropic-ratelimit-tokens-{}"),
        ("tokens", "anthropic-ratelimit-input-tokens-{}"),
        ("tokens", "anthropic-ratelimit-output-tokens-{}"),
    )
)


@dataclass(frozen=True)
class Quota:
    """One limit as the server reported it: its size, what is left of it, and in how many
    seconds it is full again (each None when not said, or said unreadably)."""

    limit: int | None
    remaining: int | None
    reset_s: float | None


@dataclass(frozen=True)
class RateHeaders:
    """The request quota and the token quotas (Anthropic has up to three) of one answer."""

    requests: Quota | None = None
    tokens: tuple[Quota, ...] = ()

    @property
    def quotas(self) -> tuple[Quota, ...]:
        return ((self.requests,) if self.requests is not None else ()) + self.tokens


def parse_duration(text: str) -> float | None:
    """Seconds in a Go duration (``"6m0s"``, ``"1.5s"``, ``"250ms"``) or a plain number of
    seconds; None for anything else."""
    text = text.strip()
    if _DURATION.fullmatch(text):
        return sum(float(number) * _UNIT_S[unit] for number, unit in _PART.findall(text))
    return _count_like(text, float)


def parse_reset(text: str, *, now: float) -> float | None:
    """Seconds from ``now`` (a Unix time) until ``text``, a duration or an RFC 3339 time;
    at most :data:`MAX_RESET_S`, at least 0; None when unreadable.

    >>> parse_reset("2026-12-03T18:00:30Z", now=1796320800.0)
    30.0
    """
    seconds = parse_duration(text)
    if seconds is None:
        seconds = _seconds_until(text, now)
    if seconds is None or not math.isfinite(seconds):
        return None
    return min(max(seconds, 0.0), MAX_RESET_S)


def _seconds_until(text: str, now: float) -> float | None:
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:  # RFC 3339 always says its offset; a local time is a guess
        return None
    return moment.timestamp() - now


def _count_like(text: str, kind: type[float] | type[int]) -> float | None:
    if not _NUMBER.fullmatch(text.strip()):
        return None
    number = float(text.strip())
    if not math.isfinite(number) or number > _MAX_COUNT:
        return None
    if kind is int and not number.is_integer():
        return None
    return number


def _count(text: str | None) -> int | None:
    number = _count_like(text, int) if text is not None else None
    return int(number) if number is not None else None


def _quota(headers: Mapping[str, str], names: tuple[str, ...], now: float) -> Quota | None:
    limit, remaining, reset = (headers.get(name) for name in names)
    if limit is None and remaining is None and reset is None:
        return None
    return Quota(
        limit=_count(limit),
        remaining=_count(remaining),
        reset_s=parse_reset(reset, now=now) if reset is not None else None,
    )


def read_rate_headers(headers: Mapping[str, str], *, now: float) -> RateHeaders:
    """The quotas ``headers`` report (names in any case); ``now`` is the Unix time the
    answer came, against which an RFC 3339 reset is read."""
    lowered = {name.lower(): value for name, value in headers.items()}
    requests: Quota | None = None
    tokens: list[Quota] = []
    for kind, names in _QUOTA_HEADERS:
        quota = _quota(lowered, names, now)
        if quota is not None and kind == "requests":
            requests = requests or quota  # one provider's headers in one answer
        elif quota is not None:
            tokens.append(quota)
    return RateHeaders(requests=requests, tokens=tuple(tokens))


def rate_limit_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Only the headers that speak of rate limits (lower-cased names), to keep with a
    failure: nothing else of a response is carried along."""
    return {
        name.lower(): value
        for name, value in headers.items()
        if name.lower().startswith(RATE_HEADER_PREFIXES)
    }
