"""``--rpm`` and ``--tpm``: at most N requests, or N tokens, a minute, counted by judgekit.

A bucket holds at most one second's worth (N / 60, at least 1) and refills at N / 60 a
second. A request takes what it needs once the bucket holds it (a request larger than the
bucket, once the bucket is full, leaving it in debt), and otherwise looks again when it
should: over any stretch of t seconds at most ``N / 60 × (t + 1)`` start — N a minute,
give or take one second's worth — beside the one request larger than the bucket that
may have taken it into debt. A token request takes its estimate and gives back what it
did not use once answered (:meth:`TokenBucket.settle`), so the requests waiting find it.

:class:`SharedTokenBucket` keeps the bucket in a file of ``JUDGEKIT_HOME``, changed under
an exclusive file lock, so every judgekit process on the machine with the same home and the
same endpoint counts against one N. No wait is longer than
:data:`~judgekit.providers.rate_headers.MAX_RESET_S`, whatever the file says.

>>> bucket = BucketState(level=1.0, at=0.0)
>>> bucket, wait = bucket.take(1, per_minute=60, now=0.0)
>>> wait
0.0
>>> bucket.take(1, per_minute=60, now=0.25)[1]  # 0.25 s refilled, 0.75 s to go
0.75
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from judgekit._util.atomic_files import write_bytes_atomically
from judgekit._util.file_locks import locked
from judgekit._util.home import judgekit_home
from judgekit.errors import ConfigError
from judgekit.providers.rate_headers import MAX_RESET_S

__all__ = ["BucketState", "SharedTokenBucket", "TokenBucket", "bounded", "capacity_of"]


def capacity_of(per_minute: float) -> float:
    """The most a bucket of ``per_minute`` holds: one second's worth, at least 1."""
    return max(per_minute / 60, 1.0)


@dataclass(frozen=True)
class BucketState:
    """What the bucket holds (negative: in debt) as of ``at`` (seconds on some clock)."""

    level: float
    at: float

    def take(self, amount: float, *, per_minute: float, now: float) -> tuple[BucketState, float]:
        """The bucket at ``now`` with ``amount`` taken and 0, when it holds that much (or is
        full); else the bucket untouched and the seconds until it will."""
        rate, capacity = per_minute / 60, capacity_of(per_minute)
        level = min(self.level + max(now - self.at, 0.0) * rate, capacity)
        needed = min(amount, capacity)
        if level >= needed:
            return BucketState(level - amount, now), 0.0
        return BucketState(level, now), min((needed - level) / rate, MAX_RESET_S)

    def settle(self, amount: float, *, per_minute: float, now: float) -> BucketState:
        """The bucket with ``amount`` given back (negative: taken) at ``now``."""
        refilled = self.take(0, per_minute=per_minute, now=now)[0]
        return BucketState(min(refilled.level + amount, capacity_of(per_minute)), now)


# The most a state file may hold.
_MOST_BYTES = 4096

# A change to a bucket at a time: the bucket after it, and the wait it imposes.
_Change = Callable[[BucketState, float], tuple[BucketState, float]]


class TokenBucket:
    """A bucket of ``per_minute`` in this process."""

    def __init__(self, per_minute: float) -> None:
        if not (math.isfinite(per_minute) and per_minute > 0):
            raise ConfigError(f"a rate limit must be a positive number a minute, not {per_minute}")
        self.per_minute = per_minute
        self._state = BucketState(capacity_of(per_minute), time.monotonic())

    def take(self, amount: float) -> float:
        """Take ``amount`` now and 0, or the seconds to wait before asking again."""
        self._state, wait = self._state.take(
            amount, per_minute=self.per_minute, now=time.monotonic()
        )
        return wait

    def settle(self, amount: float) -> None:
        """Give back ``amount`` (negative: take more), once the real cost is known."""
        self._state = self._state.settle(amount, per_minute=self.per_minute, now=time.monotonic())


class SharedTokenBucket(TokenBucket):
    """A bucket of ``per_minute`` shared by the processes whose ``JUDGEKIT_HOME`` and
    ``key`` (what is limited: the endpoint and requests or tokens) are the same."""

    def __init__(self, per_minute: float, *, key: str) -> None:
        super().__init__(per_minute)
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
        folder = judgekit_home() / "rate-limits"
        folder.mkdir(exist_ok=True)
        self.path = folder / f"{digest}.json"
        self._lock_path = folder / f"{digest}.lock"

    def take(self, amount: float) -> float:
        return self._update(
            lambda state, now: state.take(amount, per_minute=self.per_minute, now=now)
        )

    def settle(self, amount: float) -> None:
        self._update(
            lambda state, now: (state.settle(amount, per_minute=self.per_minute, now=now), 0.0)
        )

    def _update(self, change: _Change) -> float:
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            with locked(fd, exclusive=True):
                now = time.time()  # the clock every process shares
                state, wait = change(self._read(now), now)
                payload = {"level": state.level, "at": state.at}
                write_bytes_atomically(self.path, json.dumps(payload).encode())
        finally:
            os.close(fd)
        return wait

    def _read(self, now: float) -> BucketState:
        """The bucket as the file has it; full when there is no file yet."""
        try:
            with self.path.open("rb") as fh:
                raw = fh.read(_MOST_BYTES + 1)  # a bucket is a few dozen bytes: read no more
        except FileNotFoundError:
            return BucketState(capacity_of(self.per_minute), now)
        except OSError as exc:
            raise ConfigError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        return _parsed(raw, self.path, self.per_minute)


def _parsed(raw: bytes, path: Path, per_minute: float) -> BucketState:
    """The bucket a state file holds; a malformed one is an error naming it."""
    try:
        if len(raw) > _MOST_BYTES:
            raise ValueError(f"larger than {_MOST_BYTES} bytes")
        data = json.loads(raw)
        level, at = float(data["level"]), float(data["at"])
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise ConfigError(
            f"{path}: not a rate-limit state file ({exc!s}); it should hold "
            '{"level": <number>, "at": <Unix time>}: delete it to start the shared count afresh'
        ) from None
    if not (math.isfinite(level) and math.isfinite(at)):
        raise ConfigError(
            f"{path}: level and at must be finite numbers, got {level} and {at}: delete it "
            "to start the shared count afresh"
        )
    return bounded(BucketState(level, at), per_minute=per_minute, now=time.time())


def bounded(state: BucketState, *, per_minute: float, now: float) -> BucketState:
    """A shared bucket as read, within what any process could have made of it: a debt no
    larger than the longest wait, a time no later than ``now``."""
    floor = -per_minute / 60 * MAX_RESET_S
    return BucketState(max(state.level, floor), min(state.at, now))
