"""The fake server's rate limit: requests and tokens a minute, counted in fixed windows, told
in the headers of the API the request was sent to.

Windows follow each other from the first request: ``window_s`` seconds each, each allowing
the per-minute figures scaled to its length (600 requests a minute in 10-second windows:
100 a window). A request counts one request and, as OpenAI counts it, its input tokens (one
a word) plus the ``max_tokens`` it asks for; one that would pass either quota is answered
429 and counted in neither. Every answer of the chat endpoints tells the window's state
afterwards, 200s too:

- OpenAI: ``x-ratelimit-limit-requests``, ``x-ratelimit-remaining-requests``,
  ``x-ratelimit-reset-requests`` (a duration, ``"1.5s"``, ``"250ms"``, ``"1m0s"``) and the
  same for ``-tokens``; a 429 adds ``retry-after`` (whole seconds, rounded up) and
  ``retry-after-ms``;
- Anthropic: ``anthropic-ratelimit-requests-limit``, ``-remaining``, ``-reset`` (an RFC 3339
  time) and the same for ``anthropic-ratelimit-tokens-``; a 429 adds ``retry-after``.

``limit`` is the window's allowance (what ``remaining`` counts down from).

>>> window = RateWindow(RateLimit(requests_per_minute=120, window_s=1.0), clock=lambda: 0.0)
>>> [window.admit("openai", 5).admitted for _ in range(3)]
[True, True, False]
>>> window.admit("openai", 5).headers["x-ratelimit-remaining-requests"]
'0'
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from judgekit._util.number_format import go_duration
from judgekit.testing.fake_request import Api

__all__ = ["Admission", "RateLimit", "RateWindow"]


@dataclass(frozen=True)
class RateLimit:
    """At most ``requests_per_minute`` requests and ``tokens_per_minute`` tokens (None: no
    limit), counted in fixed windows of ``window_s`` seconds."""

    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    window_s: float = 60.0

    def __post_init__(self) -> None:
        for name, value in (
            ("requests_per_minute", self.requests_per_minute),
            ("tokens_per_minute", self.tokens_per_minute),
        ):
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        if not (math.isfinite(self.window_s) and self.window_s > 0):
            raise ValueError(f"window_s must be a positive number of seconds, got {self.window_s}")

    def allowance(self, per_minute: int | None) -> int | None:
        """What one window allows of ``per_minute`` (at least 1)."""
        return None if per_minute is None else max(1, int(per_minute * self.window_s / 60))


@dataclass(frozen=True)
class Admission:
    """Whether a request was let through, and the headers to answer it with."""

    admitted: bool
    headers: dict[str, str]


@dataclass
class _Window:
    index: int = 0
    requests: int = 0
    tokens: int = 0
    admitted: list[int] = field(default_factory=lambda: [0])


class RateWindow:
    """The fixed windows of one :class:`RateLimit`, shared by the server's handler threads."""

    def __init__(self, limit: RateLimit, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self._clock = clock
        self._lock = threading.Lock()
        self._start: float | None = None
        self._window = _Window()

    @property
    def admitted_per_window(self) -> list[int]:
        """Requests let through in each window so far, the current one last (a copy)."""
        with self._lock:
            return list(self._window.admitted)

    def admit(self, api: Api, tokens: int) -> Admission:
        """Count a request of ``tokens`` sent to ``api``, or refuse it."""
        with self._lock:
            now = self._clock()
            if self._start is None:
                self._start = now
            window = self._turned(now)
            requests_allowed = self.limit.allowance(self.limit.requests_per_minute)
            tokens_allowed = self.limit.allowance(self.limit.tokens_per_minute)
            admitted = (requests_allowed is None or window.requests + 1 <= requests_allowed) and (
                tokens_allowed is None or window.tokens + tokens <= tokens_allowed
            )
            if admitted:
                window.requests += 1
                window.tokens += tokens
                window.admitted[-1] += 1
            reset_s = self._start + (window.index + 1) * self.limit.window_s - now
            counts = (
                (requests_allowed, window.requests, "requests"),
                (tokens_allowed, window.tokens, "tokens"),
            )
        headers = _headers(api, counts, reset_s)
        if not admitted:
            headers["retry-after"] = str(max(math.ceil(reset_s), 1))
            if api == "openai":
                headers["retry-after-ms"] = str(max(math.ceil(reset_s * 1000), 1))
        return Admission(admitted, headers)

    def _turned(self, now: float) -> _Window:
        """The window ``now`` falls in, a new one begun when the last has ended."""
        assert self._start is not None
        index = int((now - self._start) // self.limit.window_s)
        window = self._window
        if index > window.index:
            # Windows no request came in were empty.
            admitted = window.admitted + [0] * (index - window.index)
            self._window = _Window(index=index, admitted=admitted)
        return self._window


def _headers(
    api: Api, counts: tuple[tuple[int | None, int, str], ...], reset_s: float
) -> dict[str, str]:
    headers: dict[str, str] = {}
    reset_at = datetime.fromtimestamp(time.time() + reset_s, UTC).isoformat(timespec="milliseconds")
    for allowed, used, kind in counts:
        if allowed is None:
            continue
        remaining = str(max(allowed - used, 0))
        if api == "openai":
            headers[f"x-ratelimit-limit-{kind}"] = str(allowed)
            headers[f"x-ratelimit-remaining-{kind}"] = remaining
            headers[f"x-ratelimit-reset-{kind}"] = go_duration(reset_s)
        else:
            headers[f"anthropic-ratelimit-{kind}-limit"] = str(allowed)
            headers[f"anthropic-ratelimit-{kind}-remaining"] = remaining
            headers[f"anthropic-ratelimit-{kind}-reset"] = reset_at.replace("+00:00", "Z")
    return headers
