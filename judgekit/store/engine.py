"""The store's SQLAlchemy engine: creating it for SQLite or PostgreSQL, and the one place
where database failures become :class:`StoreError` (the tables :data:`STORE_ERRORS`,
:data:`ENGINE_ERRORS` and :data:`DATABASE_FILE_ERRORS`).

SQLite runs in WAL mode with a busy timeout, so several processes can write to one file at
once. Every database failure surfaces as :class:`StoreError` naming the database, never its
password.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Final

from sqlalchemy import URL, Connection, Engine, create_engine, event
from sqlalchemy.exc import SQLAlchemyError

from judgekit._util.input_paths import os_reason, os_reason_with_file
from judgekit.errors import ErrorTable, StoreError, map_exceptions
from judgekit.store.sqlite_wal import configure_sqlite_connection

SUPPORTED_BACKENDS: Final = ("sqlite", "postgresql")


def _driver_reason(exc: SQLAlchemyError) -> str:
    # The driver's own message ("database is locked") without the SQL and parameters,
    # which may hold long texts of agent output.
    return str(getattr(exc, "orig", None) or exc)


def _store_error(reason: Callable[[Any], str]) -> Callable[[Any, URL], StoreError]:
    """A row of a store table: the database's name (its password hidden), then ``reason``."""
    return lambda exc, url: StoreError(f"{url.render_as_string(hide_password=True)}: {reason(exc)}")


STORE_ERRORS: Final[ErrorTable[URL]] = {
    SQLAlchemyError: _store_error(_driver_reason),
    OSError: _store_error(os_reason_with_file),
    # sqlite3 refuses a whole number past 64 bits before SQLAlchemy sees the statement.
    OverflowError: _store_error(lambda exc: f"{exc} (past the 64 bits a column holds)"),
}
"""Any failure of the database, or of its file, while the store uses it."""

ENGINE_ERRORS: Final[ErrorTable[URL]] = {
    ModuleNotFoundError: _store_error(
        lambda exc: f"the database driver is not installed (pip install {exc.name})"
    ),
    SQLAlchemyError: _store_error(_driver_reason),
}
"""A URL SQLAlchemy cannot make an engine of, or whose driver is not installed."""

DATABASE_FILE_ERRORS: Final[ErrorTable[URL]] = {
    FileNotFoundError: lambda exc, url: None,  # an absent file is created
    OSError: _store_error(os_reason),
}
"""A database file the system will not open: the reason, which SQLite would not give."""


def create_store_engine(url: URL) -> Engine:
    """An engine; for SQLite, one whose connections wait for locks and share the file."""
    with map_exceptions(ENGINE_ERRORS, url):
        engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        if url.database and url.database != ":memory:" and not url.database.startswith("file:"):
            _check_database_file(url, Path(url.database))
            with store_errors(url):
                Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        event.listen(engine, "connect", _configure_sqlite_connection)
        event.listen(engine, "begin", _begin_sqlite_transaction)
    return engine


def _check_database_file(url: URL, path: Path) -> None:
    """Refuse a database file the system will not open, with its reason (SQLite would say
    only "unable to open database file"): a symbolic link that loops, a folder, a path
    that cannot be searched. An absent file is fine: it is created."""
    try:
        with map_exceptions(DATABASE_FILE_ERRORS, url):
            mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        where = url.render_as_string(hide_password=True)
        raise StoreError(f"{where}: {path} is a folder, not a database file")


def _configure_sqlite_connection(dbapi_connection: Any, connection_record: Any) -> None:
    configure_sqlite_connection(dbapi_connection)


SQLITE_BEGIN: Final = "judgekit_sqlite_begin"
"""The execution option naming how a SQLite transaction begins: ``IMMEDIATE`` takes the
write lock first, so what the transaction reads no other writer changes before it writes."""


def _begin_sqlite_transaction(connection: Any) -> None:
    immediate = connection.get_execution_options().get(SQLITE_BEGIN) == "IMMEDIATE"
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def store_errors(url: URL) -> AbstractContextManager[None]:
    """Report any SQLAlchemy or file-system failure as :class:`StoreError` naming the
    database, by :data:`STORE_ERRORS` (the original kept as the cause)."""
    return map_exceptions(STORE_ERRORS, url, chain=True)


@contextmanager
def reading(engine: Engine) -> Iterator[Connection]:
    """A connection for queries, its failures reported by :func:`store_errors`."""
    with store_errors(engine.url), engine.connect() as connection:
        yield connection


@contextmanager
def writing(engine: Engine, *, immediate: bool = False) -> Iterator[Connection]:
    """A connection in one transaction, committed on success and rolled back on failure,
    its failures reported by :func:`store_errors`; ``immediate``: on SQLite, holding the
    write lock from its start (``BEGIN IMMEDIATE``)."""
    with store_errors(engine.url), engine.connect() as connection:
        if immediate:
            connection.execution_options(**{SQLITE_BEGIN: "IMMEDIATE"})
        with connection.begin():
            yield connection
