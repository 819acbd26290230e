"""Switching a SQLite database to WAL mode when other processes may be doing the same."""

from __future__ import annotations

import sqlite3
import time
from typing import Any


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
