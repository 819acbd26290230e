"""Recording verdicts in SQLite at the driver's speed: each verdict goes straight to the
tuple of its row (:mod:`judgekit.store.verdict_values`), a chunk at a time in one multi-row
upsert inside the store's transaction, and the new verdicts folded into their daily totals
once at the end.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from itertools import chain, islice
from typing import Final

from sqlalchemy import Connection

from judgekit.formats.verdict import Verdict
from judgekit.store import schema
from judgekit.store.bulk import bulk_columns, prepared
from judgekit.store.day_totals import FOLD, MOVE_MARK
from judgekit.store.statements import verdict_upsert
from judgekit.store.verdict_values import COLUMNS, Values, verdict_values

# Verdicts a statement, as the general path: repeated keys are settled within a chunk (the
# last kept) and across chunks by the upsert (where an unscored verdict never replaces a
# scored one), so the chunks' bounds decide which verdict stays, and the count returned.
_CHUNK: Final = 500


def record_sqlite_verdicts(
    connection: Connection, verdicts: Iterable[Verdict], batch_id: int
) -> int:
    """Upsert ``verdicts`` into the batch in the transaction ``connection`` is in, the later
    of repeated keys kept; return how many rows were written.

    A chunk is one statement, its rows one multi-row ``VALUES`` of the upsert: a row
    trigger on the table (the daily totals' trigger on UPDATE) makes SQLite open a statement
    journal for every statement, which for a statement a row (``executemany``) costs a
    fifth of the recording speed.
    """
    statements = _upsert(connection)
    constants = statements.constants
    driver = connection.connection.driver_connection
    assert isinstance(driver, sqlite3.Connection)
    limit = driver.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    per_statement = max(1, min(_CHUNK, (limit - len(constants)) // len(COLUMNS)))
    written = 0
    iterator = iter(verdicts)
    while chunk := list(islice(iterator, _CHUNK)):
        # The last of repeated keys wins, in the place of the first (as the general path).
        unique = list(
            {(v.run_id, v.rubric_id, v.rubric_version, v.model): v for v in chunk}.values()
        )
        for start in range(0, len(unique), per_statement):
            rows = [verdict_values(v, batch_id) for v in unique[start : start + per_statement]]
            values = (*chain.from_iterable(rows), *constants)
            connection.exec_driver_sql(statements.of(len(rows)), values)
        written += len(unique)
    connection.exec_driver_sql(FOLD)
    connection.exec_driver_sql(MOVE_MARK)
    return written


def _upsert(connection: Connection) -> _MultiRow:
    """The verdicts' upsert, compiled once a process (a compilation takes a millisecond:
    a judge records its verdicts fifty a call)."""
    global _COMPILED
    if _COMPILED is None:
        names = bulk_columns(schema.verdicts)
        if names != list(COLUMNS):
            raise AssertionError(f"the verdicts table's columns moved: {names}")
        sql, constants = prepared(connection, schema.verdicts, verdict_upsert("sqlite"))
        _COMPILED = _MultiRow(sql, len(names), constants)
    return _COMPILED


class _MultiRow:
    """The upsert's SQL with n rows of placeholders, made once for each n, and the
    statement's own constants (its WHERE's), which follow the rows' values."""

    def __init__(self, sql: str, width: int, constants: Values) -> None:
        row = f"({', '.join('?' * width)})"
        head, found, tail = sql.partition(f" VALUES {row}")
        if not found or row in tail:
            raise AssertionError(f"unexpected upsert: {sql}")
        self._head, self._row, self._tail = head, row, tail
        self._made: dict[int, str] = {}
        self.constants = constants

    def of(self, rows: int) -> str:
        if rows not in self._made:
            self._made[rows] = f"{self._head} VALUES {', '.join([self._row] * rows)}{self._tail}"
        return self._made[rows]


_COMPILED: _MultiRow | None = None
