"""The judge cache's file: a SQLite table of answers by key, shared by threads and processes.

Not the store: a file of its own (``JUDGEKIT_HOME/cache.sqlite``) holding only what judge
models answered, so it can be deleted at any time. Its SQL lives here with the store's;
:class:`judgekit.judging.cache.JudgeCache` decides the keys and what an answer is.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Final

from judgekit._util.input_paths import os_reason
from judgekit.errors import StoreError
from judgekit.store.sqlite_wal import switch_to_wal

# Concurrent judge processes may share one cache file: wait for a writer rather than fail.
BUSY_TIMEOUT_S: Final = 30.0

# A cached answer as stored: text, model, input tokens, output tokens, latency in seconds,
# and its token log-probabilities as JSON (None when not asked for).
AnswerRow = tuple[str, str, int, int, float, str | None]

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS responses (
    key           TEXT PRIMARY KEY,
    text          TEXT    NOT NULL,
    model         TEXT    NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency_s     REAL    NOT NULL,
    tokens        TEXT
)
"""


class CacheFile:
    """One connection shared by every thread, serialised by a lock (lookups are cheap), in
    autocommit mode so each ``put`` is durable as soon as it returns."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        with self._errors():
            path.parent.mkdir(parents=True, exist_ok=True)
            # SQLite would say only "unable to open database file" about a path that loops.
            with suppress(FileNotFoundError):
                os.stat(path)
            self._db = sqlite3.connect(
                path, timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None
            )
            try:
                # WAL lets readers proceed while another process writes; NORMAL sync is
                # durable across application crashes, and WAL never corrupts on power loss.
                switch_to_wal(self._db, timeout_s=BUSY_TIMEOUT_S)
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.execute(_SCHEMA)
                _add_tokens_column(self._db)
            except BaseException:
                self._db.close()
                raise

    def get(self, key: str) -> AnswerRow | None:
        with self._lock, self._errors():
            row = self._db.execute(
                "SELECT text, model, input_tokens, output_tokens, latency_s, tokens"
                " FROM responses WHERE key = ?",
                (key,),
            ).fetchone()
        return None if row is None else (row[0], row[1], row[2], row[3], row[4], row[5])

    def put(self, key: str, row: AnswerRow) -> None:
        """Store ``row`` under ``key``, replacing any earlier answer (idempotent)."""
        with self._lock, self._errors():
            self._db.execute(
                "INSERT OR REPLACE INTO responses"
                " (key, text, model, input_tokens, output_tokens, latency_s, tokens)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, *row),
            )

    def count(self) -> int:
        with self._lock, self._errors():
            (entries,) = self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(entries)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Report sqlite3 and file-system failures as :class:`StoreError` naming the file."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            raise StoreError(f"judge cache {self.path}: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            # Not a lock or a full disk but a damaged file: say it is safe to throw away.
            raise StoreError(
                f"judge cache {self.path}: {exc}; delete the file to start an empty cache "
                "(it holds only judge answers, which are then asked for again)"
            ) from exc
        except sqlite3.Error as exc:
            raise StoreError(f"judge cache {self.path}: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"judge cache {self.path}: {os_reason(exc)}") from exc


def _add_tokens_column(db: sqlite3.Connection) -> None:
    """A cache file written before log-probabilities were kept gains their column (empty:
    its answers were never asked for them)."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(responses)")}
    if "tokens" in columns:
        return
    try:
        db.execute("ALTER TABLE responses ADD COLUMN tokens TEXT")
    except sqlite3.OperationalError as exc:
        if "duplicate column" not in str(exc):  # another process added it first
            raise
