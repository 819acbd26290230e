"""Connecting to the store's database: SQLite (the default, a file in ``JUDGEKIT_HOME``) or
PostgreSQL (``JUDGEKIT_DB``), migrated on open.

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
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy import URL, Engine, create_engine, event, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from judgekit._util.home import judgekit_home
from judgekit._util.input_paths import os_reason
from judgekit._util.sqlite_wal import switch_to_wal
from judgekit.errors import StoreError
from judgekit.store.migrations import apply_migrations

if TYPE_CHECKING:
    from judgekit.store.store import Store

DB_ENV: Final = "JUDGEKIT_DB"
SUPPORTED_BACKENDS: Final = ("sqlite", "postgresql")

# Long enough to wait out another process's write transaction (a batch of verdicts).
BUSY_TIMEOUT_MS: Final = 30_000

# Verdicts are written this many per statement: a million-verdict iterable is streamed, not
# held in memory, while the whole call stays one transaction.
_CHUNK: Final = 500


def home_store_url() -> URL:
    """The SQLite store in :func:`judgekit._util.home.judgekit_home`, whatever ``$JUDGEKIT_DB`` says.

    Built, not parsed: a folder name with "?" or "#" must not read as URL syntax.
    """
    return URL.create("sqlite", database=str(judgekit_home() / "judgekit.sqlite"))


def open_store(url: str | URL | None = None) -> Store:
    """Open (creating and migrating if needed) the store at ``url``.

    ``url`` defaults to ``$JUDGEKIT_DB``, else :func:`home_store_url`. ``sqlite://`` is an
    in-memory store for quick tests (one per thread).
    """
    if isinstance(url, URL):
        parsed = url
    elif raw := url or os.environ.get(DB_ENV):
        parsed = _parse_url(raw, "the store URL" if url else DB_ENV)
    else:
        parsed = home_store_url()
    engine = _create_engine(parsed)
    try:
        with store_errors(parsed):
            apply_migrations(engine)
    except BaseException:
        engine.dispose()
        raise
    from judgekit.store.store import Store

    return Store(engine)


def _parse_url(raw: str, source: str) -> URL:
    try:
        url = make_url(raw)
    except (ArgumentError, ValueError):
        # The text is not echoed: an unparseable URL may still contain a password.
        raise StoreError(
            f"{source} is not a database URL; expected sqlite:///path/to/judgekit.sqlite "
            "or postgresql+psycopg://user@host/dbname"
        ) from None
    if url.get_backend_name() not in SUPPORTED_BACKENDS:
        raise StoreError(
            f"{url.render_as_string(hide_password=True)}: the store supports "
            f"{' and '.join(SUPPORTED_BACKENDS)}, not {url.get_backend_name()}"
        )
    return url


def _create_engine(url: URL) -> Engine:
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
