"""Recording in the store's SQLite file through Python's sqlite3 module alone.

Judging records its runs and verdicts as it goes; through the full store that means loading
SQLAlchemy, which costs a command wholly answered from the cache more than the judging itself.
This recorder writes the same rows with the same SQL (rendered from the store's SQLAlchemy
statements into :mod:`judgekit.store.sqlite_sql`), in the same transactions, on a connection
set up as the store sets up each of its own. It opens a store file that has exactly the
migrations this judgekit knows, and makes a new one as the migrations would; anything else (a
file to migrate, one from a newer judgekit, PostgreSQL) goes to
:func:`judgekit.store.open_store`, which migrates or refuses it.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, suppress
from datetime import UTC, datetime
from itertools import islice
from operator import itemgetter
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final

from judgekit._util.home import judgekit_home
from judgekit._util.input_paths import os_reason_with_file
from judgekit.errors import ErrorTable, StoreError, map_exceptions
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.store import sqlite_sql
from judgekit.store.day_totals import fold_new_verdicts
from judgekit.store.rows import grade_row, run_row
from judgekit.store.sqlite_values import Statement, Values, utc_text
from judgekit.store.sqlite_wal import configure_sqlite_connection
from judgekit.store.verdict_values import COLUMNS, verdict_values

if TYPE_CHECKING:
    from judgekit.formats.grade import Grade  # grades are only passed through here

DB_ENV: Final = "JUDGEKIT_DB"
_SQLITE_PREFIX: Final = "sqlite:///"
_CHUNK: Final = 500  # rows a statement, as the full store writes them

if sqlite_sql.VERDICT_UPSERT.columns != COLUMNS:  # verdict_values builds them in its order
    raise AssertionError(f"the verdicts' columns moved: {sqlite_sql.VERDICT_UPSERT.columns}")


_ERRORS: Final[ErrorTable[str]] = {
    sqlite3.Error: lambda exc, url: StoreError(f"{url}: {exc}"),
    OSError: lambda exc, url: StoreError(f"{url}: {os_reason_with_file(exc)}"),
}
"""The full store's messages for the same failures: the database, then the driver's reason."""


def open_sqlite_recorder() -> SqliteRecorder | None:
    """A recorder for the store ``$JUDGEKIT_DB`` (else the home store) names, made as the
    migrations make it when there is no file yet; or None when the full store must open it:
    not a plain SQLite file path in a folder that exists, or a file whose migrations are not
    exactly this judgekit's."""
    path = _sqlite_path(os.environ.get(DB_ENV))
    if path is None:
        return None
    new = not os.path.lexists(path)
    if not path.parent.is_dir() if new else not path.is_file():
        return None  # the full store makes the folder, or says what is wrong with the path
    try:
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except (sqlite3.Error, OSError):
        return None  # the full store says why
    try:
        configure_sqlite_connection(connection)
        if new:
            _create_store(connection)
        names = connection.execute(f"SELECT name FROM {sqlite_sql.MIGRATIONS_TABLE}").fetchall()
    except sqlite3.Error:
        names = []
    if sorted(name for (name,) in names) != sorted(sqlite_sql.MIGRATIONS):
        connection.close()
        return None
    return SqliteRecorder(connection, _SQLITE_PREFIX + str(path))


def _create_store(connection: sqlite3.Connection) -> None:
    """Make a new store as the migrations would (their result, rendered into
    :mod:`judgekit.store.sqlite_sql`), in one transaction, unless another process has begun
    making it meanwhile: then the migrations table says what it holds."""
    connection.execute("BEGIN IMMEDIATE")  # the write lock first, as the migrations take it
    try:
        (objects,) = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        if not objects:
            for sql in sqlite_sql.NEW_STORE_SCHEMA:
                connection.execute(sql)
            for table, columns, rows in sqlite_sql.NEW_STORE_ROWS:
                marks = ", ".join("?" * len(columns))
                connection.executemany(
                    f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows
                )
            now = utc_text(datetime.now(UTC))
            connection.executemany(
                f"INSERT INTO {sqlite_sql.MIGRATIONS_TABLE} (name, applied_at) VALUES (?, ?)",
                [(name, now) for name in sqlite_sql.MIGRATIONS],
            )
        connection.execute("COMMIT")
    except BaseException:
        with suppress(sqlite3.Error):
            connection.execute("ROLLBACK")
        raise


def _sqlite_path(url: str | None) -> Path | None:
    if not url:
        return judgekit_home() / "judgekit.sqlite"
    path = url.removeprefix(_SQLITE_PREFIX)
    # Only the plain form: anything URL syntax could change (a query, an escape, a
    # relative or in-memory database) is the full store's to read.
    if path == url or not path.startswith("/") or any(c in path for c in "?#%"):
        return None
    return Path(path)


class SqliteRecorder(AbstractContextManager["SqliteRecorder"]):
    """The store's batches, runs, grades and verdicts written as :class:`judgekit.store.Store`
    writes them: each call one transaction, upserts on the same keys, the later of two rows
    with one key kept."""

    def __init__(self, connection: sqlite3.Connection, url: str) -> None:
        self._connection = connection
        self._url = url

    @property
    def url(self) -> str:
        """The database, as the full store names it."""
        return self._url

    def batch(
        self,
        *,
        key: str | None = None,
        source: str | None = None,
        git_sha: str | None = None,
        branch: str | None = None,
        agent_version: str | None = None,
        tags: Mapping[str, Any] | None = None,
    ) -> int:
        """The id of the batch with ``key``, created with these details if it is new."""
        row = {
            "created_at": datetime.now(UTC),
            "batch_key": key,
            "source": source,
            "git_sha": git_sha,
            "branch": branch,
            "agent_version": agent_version,
            "tags": dict(tags) if tags is not None else None,
        }
        with self._transaction() as cursor:
            cursor.execute(sqlite_sql.BATCH_INSERT.sql, sqlite_sql.BATCH_INSERT.row_values()(row))
            if key is None:
                return int(cursor.lastrowid or 0)
            (found,) = cursor.execute(sqlite_sql.BATCH_ID_BY_KEY, (key,)).fetchone()
            return int(found)

    def record_runs(self, runs: Iterable[Run], batch_id: int) -> int:
        """Record runs (whole) in a batch."""
        now = datetime.now(UTC)
        rows = (run_row(run, batch_id, now) for run in runs)
        return self._upsert(
            sqlite_sql.RUN_UPSERT.sql, _keyed(sqlite_sql.RUN_UPSERT, sqlite_sql.RUN_KEY, rows)
        )

    def record_grades(
        self, grades: Iterable[Grade], batch_id: int, *, at: datetime | None = None
    ) -> int:
        """Record grades in a batch, timed ``at`` (default: now)."""
        when = at or datetime.now(UTC)
        rows = (grade_row(grade, batch_id, when) for grade in grades)
        return self._upsert(
            sqlite_sql.GRADE_UPSERT.sql, _keyed(sqlite_sql.GRADE_UPSERT, sqlite_sql.GRADE_KEY, rows)
        )

    def record_verdicts(self, verdicts: Iterable[Verdict], batch_id: int) -> int:
        """Record verdicts in a batch: a later verdict replaces the stored one, except that an
        unscored one never replaces a scored or abstained one (the statement says so)."""
        constants = sqlite_sql.VERDICT_UPSERT.constants
        rows = ((_verdict_key(v), verdict_values(v, batch_id) + constants) for v in verdicts)
        return self._upsert(sqlite_sql.VERDICT_UPSERT.sql, rows, at_end=fold_new_verdicts)

    def close(self) -> None:
        """Close the connection."""
        self._connection.close()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _upsert(
        self,
        sql: str,
        rows: Iterable[tuple[Hashable, Values]],
        *,
        at_end: Callable[[sqlite3.Cursor], None] | None = None,
    ) -> int:
        """Upsert each row's values; of rows with one key, the later, in the first's place."""
        written = 0
        with self._transaction() as cursor:
            iterator = iter(rows)
            while chunk := list(islice(iterator, _CHUNK)):
                unique = dict(chunk)
                cursor.executemany(sql, list(unique.values()))
                written += len(unique)
            if at_end is not None:
                at_end(cursor)  # in the same transaction, as the full store does
        return written

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        with map_exceptions(_ERRORS, self._url, chain=True):
            cursor = self._connection.cursor()
            cursor.execute("BEGIN")
            try:
                yield cursor
            except BaseException:
                with suppress(sqlite3.Error):
                    cursor.execute("ROLLBACK")
                raise
            cursor.execute("COMMIT")


def _keyed(
    statement: Statement, key: tuple[str, ...], rows: Iterable[dict[str, Any]]
) -> Iterator[tuple[Hashable, Values]]:
    """Row dicts as (their ``key`` columns, the statement's parameters)."""
    values = statement.row_values()
    key_of = itemgetter(*key)
    return ((key_of(row), values(row)) for row in rows)


def _verdict_key(verdict: Verdict) -> Hashable:
    """A verdict's key within its batch (the batch is the same for every row of a call)."""
    return (verdict.run_id, verdict.rubric_id, verdict.rubric_version, verdict.model)
