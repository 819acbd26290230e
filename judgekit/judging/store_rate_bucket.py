"""``--share-rate-limits`` with a PostgreSQL store: the ``--rpm`` and ``--tpm`` buckets kept
in the team's store, so judges on every machine that uses it stay within one N a minute.

The arithmetic is the one-process bucket's (:class:`~judgekit.providers.token_bucket.BucketState`),
each change made under the row's lock on the database's clock
(:class:`~judgekit.store.rate_buckets.RateBucketTable`). The store is opened (migrated if
needed) at the first request, and each take or settle is one short transaction.

>>> buckets = StoreBuckets("sqlite://")
>>> bucket = buckets(60, "http://x/v1/ requests")
>>> bucket.take(1), bucket.take(1) > 0.9  # one a second: the second waits about a second
(0.0, True)
"""

from __future__ import annotations

import hashlib
import threading
from typing import TYPE_CHECKING

from judgekit.providers.token_bucket import BucketState, TokenBucket, bounded, capacity_of

if TYPE_CHECKING:
    from judgekit.store.rate_buckets import RateBucketTable

__all__ = ["StoreBuckets", "StoreTokenBucket"]


class StoreBuckets:
    """Makes the buckets of the store at ``url``, opened once for all of them."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._table: RateBucketTable | None = None
        self._lock = threading.Lock()

    def __call__(self, per_minute: float, key: str) -> TokenBucket:
        return StoreTokenBucket(per_minute, key=key, buckets=self)

    def table(self) -> RateBucketTable:
        from judgekit.store.database import open_store
        from judgekit.store.rate_buckets import RateBucketTable

        with self._lock:  # buckets are changed from worker threads
            if self._table is None:
                self._table = RateBucketTable(open_store(self.url).engine)
            return self._table


class StoreTokenBucket(TokenBucket):
    """A bucket of ``per_minute`` shared by every process using the same store and ``key``
    (what is limited: the endpoint and requests or tokens)."""

    def __init__(self, per_minute: float, *, key: str, buckets: StoreBuckets) -> None:
        super().__init__(per_minute)
        self._key = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
        self._buckets = buckets

    def take(self, amount: float) -> float:
        def change(level: float, at: float, now: float) -> tuple[float, float, float]:
            state, wait = self._read(level, at, now).take(
                amount, per_minute=self.per_minute, now=now
            )
            return state.level, state.at, wait

        return self._buckets.table().change(self._key, capacity_of(self.per_minute), change)

    def settle(self, amount: float) -> None:
        def change(level: float, at: float, now: float) -> tuple[float, float, None]:
            state = self._read(level, at, now).settle(amount, per_minute=self.per_minute, now=now)
            return state.level, state.at, None

        self._buckets.table().change(self._key, capacity_of(self.per_minute), change)

    def _read(self, level: float, at: float, now: float) -> BucketState:
        return bounded(BucketState(level, at), per_minute=self.per_minute, now=now)
