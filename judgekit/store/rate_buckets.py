"""The ``--rpm`` and ``--tpm`` buckets every judgekit process using one store shares (table
``rate_buckets``, migration 0009): ``--share-rate-limits`` across machines.

Each change reads a bucket's row and writes it back in one transaction that holds the row
against every other process — PostgreSQL's ``SELECT … FOR UPDATE``, SQLite's ``BEGIN
IMMEDIATE`` — on the database's clock, so machines whose clocks differ count on one. What a
change does is the caller's (a pure function of the row and the time): the bucket's
arithmetic is the same as for one process.

>>> from judgekit.store import open_store
>>> with open_store("sqlite://") as store:
...     table = RateBucketTable(store.engine)
...     first = table.change("k", 2.0, lambda level, at, now: (level - 1, now, level))
...     second = table.change("k", 2.0, lambda level, at, now: (level - 1, now, level))
>>> first, second
(2.0, 1.0)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import Connection, Engine, select, text
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from judgekit.store import schema
from judgekit.store.engine import writing

__all__ = ["RateBucketTable"]

_TABLE = schema.rate_buckets
T = TypeVar("T")

# (level, at, now) → (the new level, the new at, what the caller wants back)
BucketChange = Callable[[float, float, float], tuple[float, float, T]]


class RateBucketTable:
    """The ``rate_buckets`` table of the store behind ``engine``."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def change(self, key: str, full: float, change: BucketChange[T]) -> T:
        """Apply ``change`` to bucket ``key`` (``full`` when it has no row yet) under its
        lock, commit, and hand back what it returned."""
        with writing(self._engine, immediate=True) as connection:
            level, at = self._locked_row(connection, key, full, _now(connection))
            # The time once the row is held: taken before, a wait for the lock would make it
            # older than what the last holder wrote, and the bucket would refill twice.
            level, at, result = change(level, at, _now(connection))
            connection.execute(
                _TABLE.update().where(_TABLE.c.key == key).values(level=level, at=at)
            )
        return result

    @staticmethod
    def _locked_row(
        connection: Connection, key: str, full: float, now: float
    ) -> tuple[float, float]:
        """Bucket ``key``'s row, made full if new, held until the transaction ends."""
        insert = postgres_insert if connection.dialect.name == "postgresql" else sqlite_insert
        connection.execute(
            insert(_TABLE)
            .values(key=key, level=full, at=now)
            .on_conflict_do_nothing(index_elements=["key"])
        )
        # FOR UPDATE is PostgreSQL's row lock; SQLite's BEGIN IMMEDIATE already holds the
        # whole database (SQLAlchemy leaves the clause out there).
        row = connection.execute(
            select(_TABLE.c.level, _TABLE.c.at).where(_TABLE.c.key == key).with_for_update()
        ).one()
        return float(row[0]), float(row[1])


def _now(connection: Connection) -> float:
    """Unix time on the database's clock (SQLite's database is this machine's)."""
    if connection.dialect.name == "postgresql":
        return float(
            connection.execute(text("SELECT extract(epoch FROM clock_timestamp())")).scalar_one()
        )
    return time.time()
