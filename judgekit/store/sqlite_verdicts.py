"""Recording verdicts in SQLite at the driver's speed: each verdict goes straight to the
tuple of its row (:mod:`judgekit.store.verdict_values`), a chunk at a time in one multi-row
upsert inside one transaction (its statement journals in memory; a thread making the next
chunk's rows while SQLite writes one), and the new verdicts folded into their daily totals
once at the end: from the rows themselves, counted as they go by, when the call only
inserted (and nothing else was left unfolded), else by :data:`judgekit.store.day_totals.FOLD`.
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager, suppress
from itertools import chain, islice
from operator import attrgetter, itemgetter
from typing import Final

from sqlalchemy import Connection, Engine

from judgekit.formats.verdict import Verdict
from judgekit.store import schema
from judgekit.store.bulk import bulk_columns, prepared
from judgekit.store.day_totals import (
    ADD,
    COUNTED,
    FOLD,
    MARK_AND_NEWEST,
    MOVE_MARK,
    NEWEST,
    TAKE_MARK,
    counted_totals,
)
from judgekit.store.engine import store_errors
from judgekit.store.statements import verdict_upsert
from judgekit.store.verdict_values import COLUMNS, Values, verdict_values

# Verdicts a statement, as the general path: repeated keys are settled within a chunk (the
# last kept) and across chunks by the upsert (where an unscored verdict never replaces a
# scored one), so the chunks' bounds decide which verdict stays, and the count returned.
_CHUNK: Final = 500
# A verdict's key within its batch (the batch is the same for every row of a call).
_KEY: Final = attrgetter("run_id", "rubric_id", "rubric_version", "model")
_RUN: Final = attrgetter("run_id")
_COUNTED: Final = itemgetter(*(COLUMNS.index(name) for name in COUNTED))


def record_sqlite_verdicts(engine: Engine, verdicts: Iterable[Verdict], batch_id: int) -> int:
    """Upsert ``verdicts`` into the batch in one transaction, the later of repeated keys
    kept; return how many rows were written.

    A chunk is one statement, its rows one multi-row ``VALUES`` of the upsert: a row
    trigger on the table (the daily totals' trigger on UPDATE) makes SQLite open a statement
    journal for every statement, which for a statement a row (``executemany``) costs a
    fifth of the recording speed.
    """
    with _transaction(engine) as connection:
        return _record(connection, verdicts, batch_id)


def _record(connection: Connection, verdicts: Iterable[Verdict], batch_id: int) -> int:
    """The upserts and the fold, in the transaction :func:`_transaction` began: its write
    lock already held, the mark and the newest verdict stay as read here to the commit."""
    statements = _upsert(connection)
    constants = statements.constants
    limit = _driver(connection).getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    per_statement = max(1, min(_CHUNK, (limit - len(constants)) // len(COLUMNS)))
    counts: Counter[tuple[object, ...]] = Counter()
    written = 0
    rows = _Rows(batch_id, per_statement, constants, counts)
    mark, newest = connection.exec_driver_sql(MARK_AND_NEWEST).one()
    with closing(_row_chunks(verdicts, rows)) as chunks:  # ends the thread if a write fails
        for chunk in chunks:
            for count, values in chunk:
                connection.exec_driver_sql(statements.of(count), values)
                written += count
    # Every row inserted (none replaced, no key in two chunks), after the mark: the rows past
    # the mark are this call's, exactly as counted (ids are given in order, none deleted).
    only_inserted = mark == newest and connection.exec_driver_sql(NEWEST).scalar() == (
        newest + written
    )
    totals = counted_totals(counts, batch_id) if only_inserted else None
    if totals is None:
        connection.exec_driver_sql(FOLD)
    elif totals:
        connection.exec_driver_sql(ADD, totals)
    connection.exec_driver_sql(MOVE_MARK)
    return written


_Chunk = list[tuple[int, Values]]  # a chunk's statements: how many rows, their parameters


class _Rows:
    """A chunk of verdicts as its statements' parameters, the verdicts counted as they go."""

    def __init__(
        self,
        batch_id: int,
        per_statement: int,
        constants: Values,
        counts: Counter[tuple[object, ...]],
    ) -> None:
        self._batch_id, self._per_statement = batch_id, per_statement
        self._constants, self._counts = constants, counts

    def __call__(self, chunk: list[Verdict]) -> _Chunk:
        """Each statement's rows: how many, and its parameters."""
        # The last of repeated keys wins, in the place of the first (as the general path);
        # a key holds the run, so a chunk of distinct runs has none repeated.
        if len(set(map(_RUN, chunk))) < len(chunk):
            chunk = list(dict(zip(map(_KEY, chunk), chunk, strict=True)).values())
        batch_id, per_statement = self._batch_id, self._per_statement
        statements = []
        for start in range(0, len(chunk), per_statement):
            rows = [verdict_values(v, batch_id) for v in chunk[start : start + per_statement]]
            self._counts.update(map(_COUNTED, rows))
            statements.append((len(rows), (*chain.from_iterable(rows), *self._constants)))
        return statements


def _row_chunks(
    verdicts: Iterable[Verdict], rows: Callable[[list[Verdict]], _Chunk]
) -> Generator[_Chunk, None, None]:
    """``rows`` of each chunk of ``verdicts``, in order. With more than one chunk and a
    second core, a thread makes the next chunk's while the caller writes one: SQLite leaves
    Python free while it runs a statement, so the rows cost no time. The verdicts are read
    here, in the caller's thread, one chunk ahead."""
    iterator = iter(verdicts)
    chunk = list(islice(iterator, _CHUNK))
    if len(chunk) == _CHUNK and _cores() > 1:
        with ThreadPoolExecutor(1, thread_name_prefix="judgekit-verdict-rows") as worker:
            try:
                pending = worker.submit(rows, chunk)
            except RuntimeError:  # the interpreter is exiting: no new thread, rows made here
                pass
            else:
                while chunk := list(islice(iterator, _CHUNK)):
                    following = worker.submit(rows, chunk)
                    yield pending.result()
                    pending = following
                yield pending.result()
                return
    while chunk:
        yield rows(chunk)
        chunk = list(islice(iterator, _CHUNK))


@contextmanager
def _transaction(engine: Engine) -> Iterator[Connection]:
    """:func:`judgekit.store.engine.writing`, its statement journals kept in memory: each
    multi-row upsert journals the pages it changes (a few hundred KiB), which SQLite would
    otherwise spill to a temporary file, in system calls that cost more than the rows' own.

    SQLite reads ``temp_store`` once, as the write transaction starts (its first statement,
    which takes the write lock as the upsert would), so the setting is back before anything
    else runs (sorts, temporary tables). A connection changes ``temp_store`` only outside a
    transaction, where a change drops its temporary tables: the store keeps none on SQLite.
    """
    with store_errors(engine.url), engine.connect() as connection:
        driver = _driver(connection)
        (previous,) = driver.execute("PRAGMA temp_store").fetchone()
        back = f"PRAGMA temp_store = {int(previous)}"
        driver.execute("PRAGMA temp_store = MEMORY")
        try:
            with connection.begin():
                connection.exec_driver_sql(TAKE_MARK)
                with suppress(sqlite3.OperationalError):  # else set back after the commit
                    driver.execute(back)
                yield connection
        finally:
            with suppress(sqlite3.Error):
                driver.execute(back)


def _driver(connection: Connection) -> sqlite3.Connection:
    driver = connection.connection.driver_connection
    assert isinstance(driver, sqlite3.Connection)
    return driver


def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


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
