"""The judge cache: a judge's answer to one exact request, kept so it is never paid for twice.

A key names everything that changes what the judge model sees or how it samples (provider,
the endpoint it is reached at, model, temperature, max_tokens, JSON mode, the rubric version,
the exact messages) plus the sample index. The endpoint matters: ``local/m`` on two servers,
or ``openai/gpt-4o`` through a proxy and directly, are different judges, and a hit from one
must never answer for the other. Rerunning an unchanged judge therefore hits; editing a rubric changes its version
and misses exactly the entries it affects; and the k samples of a ``samples: k`` judge are k
distinct entries, so they stay real, independent samples instead of one answer repeated.

The cache stores only what a provider answered (text, model, token counts, latency), never a
request or its headers, so no API key can end up in the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Final

from judgekit._util.home import judgekit_home
from judgekit._util.input_paths import os_reason
from judgekit._util.sqlite_wal import switch_to_wal
from judgekit.errors import StoreError
from judgekit.providers.chat import ChatRequest, ChatResponse

# Bump when the key's canonical form changes, so old entries miss instead of colliding.
KEY_FORMAT: Final = 2

# Concurrent judge processes may share one cache file: wait for a writer rather than fail.
BUSY_TIMEOUT_S: Final = 30.0

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS responses (
    key           TEXT PRIMARY KEY,
    text          TEXT    NOT NULL,
    model         TEXT    NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency_s     REAL    NOT NULL
)
"""


@dataclass(frozen=True)
class CacheStats:
    """``entries`` counts the whole file; ``hits`` and ``misses`` count this cache object's
    lookups, so a run can report how much it saved."""

    entries: int
    hits: int
    misses: int


class JudgeCache:
    """A SQLite key → :class:`ChatResponse` store, safe to share between threads and processes.

    ``path`` defaults to ``cache.sqlite`` in :func:`judgekit._util.home.judgekit_home`. Every ``put``
    is committed at once, so a crash loses at most the answer in flight.

    >>> from judgekit.providers.chat import ChatMessage
    >>> request = ChatRequest(
    ...     model="gpt-4o-mini", messages=(ChatMessage(role="user", content="Grade this."),)
    ... )
    >>> key = JudgeCache.key_for(
    ...     "openai", request, rubric_version="3f2a", sample_index=0,
    ...     endpoint="https://api.openai.com/v1",
    ... )
    >>> len(key)
    64
    >>> key == JudgeCache.key_for(
    ...     "openai", request, rubric_version="3f2a", sample_index=0,
    ...     endpoint="http://proxy.internal:8080/v1",
    ... )
    False
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else judgekit_home() / "cache.sqlite"
        # One connection shared by every thread, serialised by this lock: lookups are cheap,
        # and one connection keeps the hit and miss counters consistent with the file.
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0
        with self._errors():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # SQLite would say only "unable to open database file" about a path that loops.
            with suppress(FileNotFoundError):
                os.stat(self.path)
            # isolation_level=None: autocommit, so each put is durable as soon as it returns.
            self._db = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None
            )
            try:
                # WAL lets readers proceed while another process writes; NORMAL sync is
                # durable across application crashes, and WAL never corrupts on power loss.
                switch_to_wal(self._db, timeout_s=BUSY_TIMEOUT_S)
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.execute(_SCHEMA)
            except BaseException:
                self._db.close()
                raise

    @staticmethod
    def key_for(
        provider: str,
        request: ChatRequest,
        *,
        rubric_version: str,
        sample_index: int,
        endpoint: str,
    ) -> str:
        """The sha256 (hex) of the canonical JSON of everything that makes an answer differ.

        ``sample_index`` (0-based) separates the samples of a judge asked several times;
        ``endpoint`` is the provider's base URL (see :func:`normalise_endpoint`).
        """
        if sample_index < 0:
            raise ValueError(f"sample_index must be 0 or more, got {sample_index}")
        payload = {
            "key_format": KEY_FORMAT,
            "provider": provider,
            "endpoint": normalise_endpoint(endpoint),
            "model": request.model,
            # `or 0.0` folds -0.0 into 0.0: the same temperature must not make two keys.
            "temperature": float(request.temperature) or 0.0,
            "max_tokens": request.max_tokens,
            "json_output": request.json_output,
            "rubric_version": rubric_version,
            # A list of pairs, not a concatenation: ("ab", "c") and ("a", "bc") must differ.
            "messages": [[m.role, m.content] for m in request.messages],
            "sample_index": sample_index,
        }
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def get(self, key: str) -> ChatResponse | None:
        """The cached answer for ``key``, or None; counts a hit or a miss."""
        with self._lock, self._errors():
            row = self._db.execute(
                "SELECT text, model, input_tokens, output_tokens, latency_s"
                " FROM responses WHERE key = ?",
                (key,),
            ).fetchone()
            if row is None:
                self._misses += 1
                return None
            self._hits += 1
        text, model, input_tokens, output_tokens, latency_s = row
        return ChatResponse(
            text=text,
            model=model,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            latency_s=latency_s,
        )

    def put(self, key: str, response: ChatResponse) -> None:
        """Store ``response`` under ``key``, replacing any earlier answer (idempotent)."""
        with self._lock, self._errors():
            self._db.execute(
                "INSERT OR REPLACE INTO responses"
                " (key, text, model, input_tokens, output_tokens, latency_s)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    key,
                    response.text,
                    response.model,
                    response.input_tokens,
                    response.output_tokens,
                    response.latency_s,
                ),
            )

    def stats(self) -> CacheStats:
        """How many entries the file holds, and this object's hits and misses so far."""
        with self._lock, self._errors():
            (entries,) = self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
            return CacheStats(entries=entries, hits=self._hits, misses=self._misses)

    def close(self) -> None:
        """Close the file; the cache cannot be used afterwards."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> JudgeCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

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


_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def normalise_endpoint(url: str) -> str:
    """One spelling per endpoint: scheme and host lower-cased, a default port dropped, no
    trailing slash, no credentials, query or fragment ("" stays "").

    >>> normalise_endpoint("HTTP://LocalHost:80/v1/")
    'http://localhost/v1'
    >>> normalise_endpoint("https://api.openai.com/v1") == normalise_endpoint("https://api.openai.com:443/v1/")
    True
    """
    if not url:
        return ""
    parts = urllib.parse.urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"  # an IPv6 literal keeps its brackets
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    return urllib.parse.urlunsplit((scheme, netloc, parts.path.rstrip("/"), "", ""))
