"""The store's SQLAlchemy engine: creating it for SQLite or PostgreSQL, and the one place
where database failures become :class:`StoreError`.

SQLite runs in WAL mode with a busy timeout, so several processes can write to one file at
once. Every database failure surfaces as :class:`StoreError` naming the database, never its
password.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from sqlalchemy import URL, Connection, Engine, create_engine, event
from sqlalchemy.exc import SQLAlchemyError

from judgekit._util.input_paths import os_reason
from judgekit.errors import StoreError
from judgekit.store.sqlite_wal import switch_to_wal

SUPPORTED_BACKENDS: Final = ("sqlite", "postgresql")

# Long enough to wait out another process's write transaction (a batch of verdicts).
BUSY_TIMEOUT_MS: Final = 30_000


def create_store_engine(url: URL) -> Engine:
    """An engine; for SQLite, one whose connections wait for locks and share the file."""
    where = url.render_as_string(hide_password=True)
    try:
        engine = create_engine(url)
    except ModuleNotFoundError as exc:
        raise StoreError(
            f"{where}: the database driver is not installed (pip install {exc.name})"
        ) from None
    except SQLAlchemyError as exc:
        raise StoreError(f"{where}: {exc}") from None
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
    where = url.render_as_string(hide_password=True)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"{where}: {os_reason(exc)}") from None
    if stat.S_ISDIR(mode):
        raise StoreError(f"{where}: {path} is a folder, not a database file")


def _configure_sqlite_connection(dbapi_connection: Any, connection_record: Any) -> None:
    # Python's sqlite3 opens transactions itself, but not before DDL, so a migration's
    # CREATE TABLE would commit on its own. Taking control (isolation_level=None plus an
    # explicit BEGIN, below) makes every transaction, DDL included, all or nothing.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        # busy_timeout first: switching to WAL itself may have to wait for another process.
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        switch_to_wal(cursor, timeout_s=BUSY_TIMEOUT_MS / 1000)
        # Durable across application crashes; in WAL mode a power loss never corrupts.
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _begin_sqlite_transaction(connection: Any) -> None:
    connection.exec_driver_sql("BEGIN")


@contextmanager
def store_errors(url: URL) -> Iterator[None]:
    """Report any SQLAlchemy or file-system failure as :class:`StoreError` naming the
    database; the one place where database exceptions are translated."""
    try:
        yield
    except SQLAlchemyError as exc:
        # The driver's own message ("database is locked") without the SQL and parameters,
        # which may hold long texts of agent output.
        reason = getattr(exc, "orig", None) or exc
        raise StoreError(f"{url.render_as_string(hide_password=True)}: {reason}") from exc
    except OSError as exc:
        where = url.render_as_string(hide_password=True)
        if exc.filename is not None:
            where = f"{where}: {exc.filename}"
        raise StoreError(f"{where}: {os_reason(exc)}") from exc


@contextmanager
def reading(engine: Engine) -> Iterator[Connection]:
    """A connection for queries, its failures reported by :func:`store_errors`."""
    with store_errors(engine.url), engine.connect() as connection:
        yield connection


@contextmanager
def writing(engine: Engine) -> Iterator[Connection]:
    """A connection in one transaction, committed on success and rolled back on failure,
    its failures reported by :func:`store_errors`."""
    with store_errors(engine.url), engine.begin() as connection:
        yield connection
