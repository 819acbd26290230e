"""What judges spent per UTC day, shared by every judge recording into one store: the ledger
under ``--max-cost-per-day`` (table ``judge_spend_days``, migration 0006).

A judge reserves what a request may cost before sending it and settles to what it cost once
answered. A reservation reads the day's row and adds to it in one transaction that holds the
row against every other writer — SQLite's ``BEGIN IMMEDIATE`` (the database's write lock),
PostgreSQL's ``SELECT … FOR UPDATE`` (the row's lock) — so two judges at once never reserve
past the cap together. Each settle commits at once: spend written is never lost with the
process. A judge that dies with requests in flight leaves their reservations counted for the
day, the most those requests could have cost: the cap may be reached early, never passed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, Engine, select
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from judgekit.store import schema
from judgekit.store.engine import reading, writing

__all__ = ["DaySpend", "DaySpendLedger"]

_TABLE = schema.judge_spend_days


@dataclass(frozen=True)
class DaySpend:
    """A day's row: what was settled, and what requests in flight may still cost."""

    day: str
    spent_usd: float
    reserved_usd: float


class DaySpendLedger:
    """The ``judge_spend_days`` table of the store behind ``engine``.

    >>> from judgekit.store import open_store
    >>> with open_store("sqlite://") as store:
    ...     ledger = DaySpendLedger(store.engine)
    ...     first = ledger.reserve("2026-12-03", 0.6, cap=1.0)
    ...     second = ledger.reserve("2026-12-03", 0.6, cap=1.0)  # could pass $1 together
    ...     ledger.settle("2026-12-03", reserved=0.6, spent=0.25)
    ...     first, second, ledger.spend("2026-12-03")
    (True, False, DaySpend(day='2026-12-03', spent_usd=0.25, reserved_usd=0.0))
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def reserve(self, day: str, usd: float, *, cap: float) -> bool:
        """Reserve ``usd`` of ``day``'s ``cap`` if it fits beside what is spent and reserved;
        False (nothing reserved) if it could pass it."""
        with writing(self._engine, immediate=True) as connection:
            current = self._locked_row(connection, day)
            if current.spent_usd + current.reserved_usd + usd > cap:
                return False
            self._update(connection, day, reserved=current.reserved_usd + usd)
            return True

    def settle(self, day: str, *, reserved: float, spent: float) -> None:
        """A request reserved on ``day`` answered (or failed): its reservation gives way to
        what it cost, committed now."""
        with writing(self._engine, immediate=True) as connection:
            current = self._locked_row(connection, day)
            self._update(
                connection,
                day,
                reserved=max(0.0, current.reserved_usd - reserved),
                spent=current.spent_usd + spent,
            )

    def spend(self, day: str) -> DaySpend:
        """``day``'s spend (nothing, when no judge spent that day)."""
        with reading(self._engine) as connection:
            row = connection.execute(
                select(_TABLE.c.spent_usd, _TABLE.c.reserved_usd).where(_TABLE.c.day == day)
            ).first()
        return DaySpend(day, row[0], row[1]) if row is not None else DaySpend(day, 0.0, 0.0)

    def _locked_row(self, connection: Connection, day: str) -> DaySpend:
        """``day``'s row, made if new, held until the transaction ends."""
        insert = postgres_insert if connection.dialect.name == "postgresql" else sqlite_insert
        connection.execute(
            insert(_TABLE)
            .values(day=day, spent_usd=0.0, reserved_usd=0.0)
            .on_conflict_do_nothing(index_elements=["day"])
        )
        # FOR UPDATE is PostgreSQL's row lock; SQLite's BEGIN IMMEDIATE already holds the
        # whole database (SQLAlchemy leaves the clause out there).
        row = connection.execute(
            select(_TABLE.c.spent_usd, _TABLE.c.reserved_usd)
            .where(_TABLE.c.day == day)
            .with_for_update()
        ).one()
        return DaySpend(day, row[0], row[1])

    def _update(
        self, connection: Connection, day: str, *, reserved: float, spent: float | None = None
    ) -> None:
        values: dict[str, float] = {"reserved_usd": reserved}
        if spent is not None:
            values["spent_usd"] = spent
        connection.execute(_TABLE.update().where(_TABLE.c.day == day).values(**values))
