"""What the fake server saw: requests, answers by status, concurrency, reply errors."""

from __future__ import annotations

import threading
from collections import Counter

from judgekit.testing.fake_request import FakeRequest

__all__ = ["Traffic"]


class Traffic:
    """The record of requests and answers, kept consistent across handler threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: list[FakeRequest] = []
        self._replied: list[FakeRequest] = []
        self._reply_errors: list[Exception] = []
        self._status_counts: Counter[int] = Counter()
        self._in_flight = 0
        self._max_in_flight = 0

    def arrived(self, request: FakeRequest) -> None:
        with self._lock:
            self._requests.append(request)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)

    def answered(self, status: int, request: FakeRequest | None, *, replied: bool) -> None:
        """Count an answer; ``request`` is None for one that was not an API request."""
        # Called before the response's bytes go out, so a client holding its answer always
        # finds it counted, and the in-flight count never includes a request already answered.
        with self._lock:
            self._status_counts[status] += 1
            if request is not None:
                self._in_flight -= 1
            if request is not None and replied:
                self._replied.append(request)

    def reply_failed(self, error: Exception) -> None:
        with self._lock:
            self._reply_errors.append(error)

    @property
    def requests(self) -> list[FakeRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def replied(self) -> list[FakeRequest]:
        with self._lock:
            return list(self._replied)

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self._requests)

    @property
    def status_counts(self) -> dict[int, int]:
        with self._lock:
            return dict(self._status_counts)

    @property
    def max_in_flight(self) -> int:
        with self._lock:
            return self._max_in_flight

    @property
    def reply_errors(self) -> list[Exception]:
        with self._lock:
            return list(self._reply_errors)
