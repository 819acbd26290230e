"""The faults the fake server injects: scripted ones first, then seeded random draws."""

from __future__ import annotations

import random
import threading
from collections import deque
from dataclasses import dataclass

__all__ = ["Fault", "FaultPlan", "FaultQueue"]


@dataclass(frozen=True)
class FaultPlan:
    """Random faults, drawn once per request from a generator seeded with ``seed``.

    Rates are probabilities per request; they may not add up to more than 1.

    >>> FaultPlan(http_500_rate=0.1, http_429_rate=0.05, retry_after_s=0.01).http_429_rate
    0.05
    """

    http_500_rate: float = 0.0
    http_429_rate: float = 0.0
    retry_after_s: float = 0.0
    malformed_json_rate: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        rates = (self.http_500_rate, self.http_429_rate, self.malformed_json_rate)
        if any(not 0.0 <= rate <= 1.0 for rate in rates) or sum(rates) > 1.0:
            raise ValueError(f"fault rates must lie in [0, 1] and add up to at most 1, got {rates}")
        if self.retry_after_s < 0:
            raise ValueError(f"retry_after_s must be >= 0, got {self.retry_after_s}")


@dataclass(frozen=True)
class Fault:
    """One injected failure."""

    status: int  # 200 means "a 200 whose body is not JSON"
    retry_after_s: float | None = None
    message: str | None = None


class FaultQueue:
    """The faults still scripted, and the seeded generator that decides the rest."""

    def __init__(self, seed: int) -> None:
        # One lock for the queue and the generator: the sequence of faults must not depend on
        # how handler threads interleave.
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        self._scripted: deque[Fault] = deque()

    def script(self, fault: Fault, times: int) -> None:
        """Serve ``fault`` to the next ``times`` requests, after those already scripted."""
        with self._lock:
            self._scripted.extend([fault] * times)

    def next(self, plan: FaultPlan) -> Fault | None:
        """The next request's fault: a scripted one, else one drawn by ``plan``'s rates."""
        with self._lock:
            if self._scripted:
                return self._scripted.popleft()
            draw = self._rng.random()
        if draw < plan.http_500_rate:
            return Fault(500)
        if draw < plan.http_500_rate + plan.http_429_rate:
            return Fault(429, plan.retry_after_s)
        if draw < plan.http_500_rate + plan.http_429_rate + plan.malformed_json_rate:
            return Fault(200)
        return None
