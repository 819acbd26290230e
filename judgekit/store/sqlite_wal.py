"""How the store sets up each SQLite connection: WAL mode (switched to even while other
processes do the same), a busy timeout, durable commits, foreign keys."""

from __future__ import annotations

import sqlite3
import time
from typing import Any, Final

# Long enough to wait out another process's write transaction (a batch of verdicts).
BUSY_TIMEOUT_MS: Final = 30_000


def configure_sqlite_connection(dbapi_connection: Any) -> None:
    """Set up a new sqlite3 connection as the store uses every one."""
    # Python's sqlite3 opens transactions itself, but not before DDL, so a migration's
    # CREATE TABLE would commit on its own. Taking control (isolation_level=None plus an
    # explicit BEGIN for each transaction) makes every transaction, DDL included, all or
    # nothing.
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


def switch_to_wal(cursor: Any, *, timeout_s: float) -> None:
    """Put the database in WAL mode, waiting out another process doing the same.

    The switch needs a moment of exclusive access, and SQLite does not always call the busy
    handler for it: two processes opening a new file at once can see "database is locked"
    straight away. Once one has switched, the mode is persistent and the other's switch is
    a no-op, so short retries settle it.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
