"""The verdict store: judges' verdicts, grouped in batches, in SQLite or PostgreSQL.

SQLite (the default, a file in ``JUDGEKIT_HOME``) runs in WAL mode with a busy timeout, so
several judge processes can write to one file at once. A team points ``JUDGEKIT_DB`` at
PostgreSQL to share one store. Every database failure surfaces as :class:`StoreError` naming
the database, never its password.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from pydantic import ValidationError
from sqlalchemy import URL, Engine, create_engine, event, insert, make_url, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.sql.dml import Insert

from judgekit.errors import StoreError
from judgekit.formats.verdict import Verdict
from judgekit.home import judgekit_home
from judgekit.sqlite_wal import switch_to_wal
from judgekit.store import schema
from judgekit.store.migrations import apply_migrations

DB_ENV: Final = "JUDGEKIT_DB"
SUPPORTED_BACKENDS: Final = ("sqlite", "postgresql")

# Long enough to wait out another process's write transaction (a batch of verdicts).
BUSY_TIMEOUT_MS: Final = 30_000

# Verdicts are written this many per statement: a million-verdict iterable is streamed, not
# held in memory, while the whole call stays one transaction.
_CHUNK: Final = 500


class Store:
    """Verdicts and batches in one database; open it with :func:`open_store`.

    >>> from datetime import datetime, timezone
    >>> with open_store("sqlite://") as store:
    ...     verdict = Verdict(run_id="shop/refund_full/3", rubric_id="goal_completion",
    ...                       rubric_version="3f2a", model="openai/gpt-4o-mini",
    ...                       status="scored", score="pass",
    ...                       at=datetime(2026, 11, 29, 10, 2, tzinfo=timezone.utc))
    ...     store.record_verdicts([verdict, verdict])
    ...     [v.score for v in store.verdicts("goal_completion")]
    1
    ['pass']
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine, for reports that query the tables in :mod:`.schema`."""
        return self._engine

    @property
    def url(self) -> str:
        """The database URL with any password masked, for messages and logs."""
        return self._engine.url.render_as_string(hide_password=True)

    def new_batch(
        self,
        git_sha: str | None = None,
        agent_version: str | None = None,
        tags: Mapping[str, Any] | None = None,
    ) -> int:
        """Start a batch (one judging session: a commit, an agent version, free-form tags)
        and return its id, to pass to :meth:`record_verdicts`."""
        row = {
            "created_at": datetime.now(UTC),
            "git_sha": git_sha,
            "agent_version": agent_version,
            "tags": dict(tags) if tags is not None else None,
        }
        with _store_errors(self._engine.url), self._engine.begin() as connection:
            # inserted_primary_key, not RETURNING: it also works on SQLite older than 3.35.
            key = connection.execute(insert(schema.batches).values(**row)).inserted_primary_key
        batch_id = key[0] if key else None
        if not isinstance(batch_id, int):
            raise StoreError(f"{self.url}: the database returned no id for the new batch")
        return batch_id

    def record_verdicts(self, verdicts: Iterable[Verdict], batch_id: int | None = None) -> int:
        """Record verdicts in one transaction; return how many rows were written.

        A verdict already stored for the same run, rubric, rubric version and model is
        replaced (the later one wins), so recording again never duplicates. A verdict repeated
        within one call is written once.
        """
        statement = verdict_upsert(self._engine.dialect.name)
        written = 0
        with _store_errors(self._engine.url), self._engine.begin() as connection:
            for chunk in _chunks(verdicts, _CHUNK):
                # Keep the last of duplicates: one multi-row upsert may not touch a row twice
                # on PostgreSQL.
                rows = {_key(v): _row(v, batch_id) for v in chunk}
                connection.execute(statement, list(rows.values()))
                written += len(rows)
        return written

    def verdicts(
        self, rubric_id: str, *, rubric_version: str | None = None, model: str | None = None
    ) -> list[Verdict]:
        """A rubric's verdicts, oldest first, optionally of one rubric version and judge model."""
        table = schema.verdicts
        query = select(table).where(table.c.rubric_id == rubric_id)
        if rubric_version is not None:
            query = query.where(table.c.rubric_version == rubric_version)
        if model is not None:
            query = query.where(table.c.model == model)
        query = query.order_by(table.c.at, table.c.id)
        with _store_errors(self._engine.url), self._engine.connect() as connection:
            rows = connection.execute(query).mappings().all()
        found: list[Verdict] = []
        for row in rows:
            fields = {k: v for k, v in row.items() if k not in ("id", "batch_id")}
            try:
                found.append(Verdict.model_validate(fields))
            except ValidationError as exc:
                raise StoreError(
                    f"{self.url}: verdicts row {row['id']} is not a valid verdict: "
                    f"{exc.errors()[0]['msg']}"
                ) from exc
        return found

    def close(self) -> None:
        """Close every pooled connection."""
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def open_store(url: str | None = None) -> Store:
    """Open (creating and migrating if needed) the store at ``url``.

    ``url`` defaults to ``$JUDGEKIT_DB``, else ``sqlite:///`` + ``judgekit.sqlite`` in
    :func:`judgekit.home.judgekit_home`. ``sqlite://`` is an in-memory store for quick tests
    (one per thread).
    """
    raw = url or os.environ.get(DB_ENV)
    if raw:
        parsed = _parse_url(raw, "the store URL" if url else DB_ENV)
    else:
        # Built, not parsed: a folder name with "?" or "#" must not read as URL syntax.
        parsed = URL.create("sqlite", database=str(judgekit_home() / "judgekit.sqlite"))
    engine = _create_engine(parsed)
    try:
        with _store_errors(parsed):
            apply_migrations(engine)
    except BaseException:
        engine.dispose()
        raise
    return Store(engine)


def verdict_upsert(dialect_name: str) -> Insert:
    """``INSERT … ON CONFLICT (run_id, rubric_id, rubric_version, model) DO UPDATE`` that
    replaces every other column, in the dialect's own syntax."""
    key = list(schema.VERDICT_KEY)
    replaced = [c.name for c in schema.verdicts.columns if c.name != "id" and c.name not in key]
    if dialect_name == "sqlite":
        lite = sqlite.insert(schema.verdicts)
        return lite.on_conflict_do_update(
            index_elements=key, set_={name: lite.excluded[name] for name in replaced}
        )
    if dialect_name == "postgresql":
        pg = postgresql.insert(schema.verdicts)
        return pg.on_conflict_do_update(
            index_elements=key, set_={name: pg.excluded[name] for name in replaced}
        )
    raise StoreError(f"the store supports {' and '.join(SUPPORTED_BACKENDS)}, not {dialect_name}")


def _key(verdict: Verdict) -> tuple[str, str, str, str]:
    return (verdict.run_id, verdict.rubric_id, verdict.rubric_version, verdict.model)


def _row(verdict: Verdict, batch_id: int | None) -> dict[str, Any]:
    # JSON mode turns score and samples into plain JSON values; `at` stays a datetime for
    # the UtcDateTime column.
    row = verdict.model_dump(mode="json")
    row["at"] = verdict.at
    row["batch_id"] = batch_id
    return row


def _chunks(items: Iterable[Verdict], size: int) -> Iterator[list[Verdict]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


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
            with _store_errors(url):
                Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        event.listen(engine, "connect", _configure_sqlite_connection)
        event.listen(engine, "begin", _begin_sqlite_transaction)
    return engine


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
def _store_errors(url: URL) -> Iterator[None]:
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
        raise StoreError(f"{url.render_as_string(hide_password=True)}: {exc}") from exc
