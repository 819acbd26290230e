"""Holding requests unanswered, so a test can act while a client is known to be waiting."""

from __future__ import annotations

import threading

__all__ = ["Hold"]


class Hold:
    """Lets a number of requests through, then holds every later one until released."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._answers_before_hold: int | None = None
        self._released = threading.Event()
        self._released.set()
        self._held = 0

    def after(self, answers: int) -> None:
        with self._lock:
            self._answers_before_hold = answers
            self._released.clear()

    def release(self) -> None:
        with self._lock:
            self._answers_before_hold = None
            self._released.set()

    def wait(self) -> None:
        """Return at once, or (when holding) once released."""
        with self._lock:
            if self._answers_before_hold is None:
                return
            if self._answers_before_hold > 0:
                self._answers_before_hold -= 1
                return
            self._held += 1
        self._released.wait()
        with self._lock:
            self._held -= 1

    @property
    def held(self) -> int:
        with self._lock:
            return self._held
