"""The store: what judgekit evaluated, kept over time — batches, runs, grades, verdicts,
calibrations and promotions — in SQLite or PostgreSQL (open it with
:func:`judgekit.store.open_store`).

Every write is an upsert on a natural key, so recording the same thing twice never counts it
twice: a batch is found again by its key (a digest of the runs it evaluated), a run, grade or
verdict is one per batch, a calibration one per report digest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from types import TracebackType
from typing import Any, Final, TypeVar

from pydantic import BaseModel, ValidationError
from sqlalchemy import Engine, Table, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert

from judgekit.errors import StoreError
from judgekit.formats.grade import Grade
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.store import schema
from judgekit.store.database import SUPPORTED_BACKENDS, store_errors
from judgekit.store.migrations import UNBATCHED_KEY

# Rows are written this many per statement: a million-row iterable is streamed, not held in
# memory, while the whole call stays one transaction.
_CHUNK: Final = 500
# Run ids per IN (...) query: PostgreSQL takes at most 65,535 parameters a statement.
IDS_PER_QUERY: Final = 10_000

Model = TypeVar("Model", bound=BaseModel)


@dataclass(frozen=True)
class Batch:
    """One evaluation: when, of what (its key), on which commit and branch."""

    id: int
    created_at: datetime
    batch_key: str | None
    source: str | None
    git_sha: str | None
    branch: str | None
    agent_version: str | None
    tags: dict[str, Any] | None


class Store:
    """Reads and writes of the store's tables (:mod:`judgekit.store.schema`).

    >>> from datetime import datetime, timezone
    >>> from judgekit.store import open_store
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

    # -- batches ---------------------------------------------------------------------------

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
        """The id of the batch with ``key``, created with these details if it is new (the
        first recording's details stay); without a key, always a new batch."""
        row = {
            "created_at": datetime.now(UTC),
            "batch_key": key,
            "source": source,
            "git_sha": git_sha,
            "branch": branch,
            "agent_version": agent_version,
            "tags": dict(tags) if tags is not None else None,
        }
        table = schema.batches
        with store_errors(self._engine.url), self._engine.begin() as connection:
            if key is not None:
                statement = _insert_ignoring(table, ["batch_key"], self._dialect).values(**row)
                connection.execute(statement)
                found = connection.execute(
                    select(table.c.id).where(table.c.batch_key == key)
                ).scalar_one()
                return int(found)
            # inserted_primary_key, not RETURNING: it also works on SQLite older than 3.35.
            inserted = connection.execute(insert(table).values(**row)).inserted_primary_key
        batch_id = inserted[0] if inserted else None
        if not isinstance(batch_id, int):
            raise StoreError(f"{self.url}: the database returned no id for the new batch")
        return batch_id

    def new_batch(
        self,
        git_sha: str | None = None,
        agent_version: str | None = None,
        tags: Mapping[str, Any] | None = None,
    ) -> int:
        """Start a new batch (one evaluation session) and return its id."""
        return self.batch(git_sha=git_sha, agent_version=agent_version, tags=tags)

    def find_batch(self, key: str) -> Batch | None:
        """The batch recorded under ``key``, or None."""
        table = schema.batches
        with store_errors(self._engine.url), self._engine.connect() as connection:
            row = connection.execute(select(table).where(table.c.batch_key == key)).mappings()
            found = row.first()
        return None if found is None else Batch(**found)

    def batches(self, *, branch: str | None = None, source: str | None = None) -> list[Batch]:
        """Batches, oldest first, optionally only one branch's or one command's."""
        table = schema.batches
        query = select(table).order_by(table.c.created_at, table.c.id)
        if branch is not None:
            query = query.where(table.c.branch == branch)
        if source is not None:
            query = query.where(table.c.source == source)
        with store_errors(self._engine.url), self._engine.connect() as connection:
            return [Batch(**row) for row in connection.execute(query).mappings()]

    def batch_with_grades(self, reference: str) -> Batch:
        """The batch ``batch:ID``, ``latest:BRANCH`` (the newest batch of that branch that
        holds grades) or ``latest`` (the newest of any branch), or a :class:`StoreError`."""
        kind, _, value = reference.partition(":")
        graded = select(schema.grades.c.batch_id).distinct()
        table = schema.batches
        query = select(table).where(table.c.id.in_(graded))
        if kind == "batch" and value.isdigit():
            query = query.where(table.c.id == int(value))
        elif kind == "latest" and value:
            query = query.where(table.c.branch == value)
        elif reference == "latest":
            pass
        else:
            raise StoreError(
                f"{reference!r} is not a store reference; expected batch:ID or latest:BRANCH "
                "(e.g. latest:main)"
            )
        query = query.order_by(table.c.created_at.desc(), table.c.id.desc()).limit(1)
        with store_errors(self._engine.url), self._engine.connect() as connection:
            row = connection.execute(query).mappings().first()
        if row is None:
            raise StoreError(f"{self.url}: no batch with grades matches {reference}")
        return Batch(**row)

    def _unbatched(self) -> int:
        return self.batch(key=UNBATCHED_KEY, source="unbatched")

    # -- writes ----------------------------------------------------------------------------

    def record_verdicts(self, verdicts: Iterable[Verdict], batch_id: int | None = None) -> int:
        """Record verdicts in one transaction; return how many rows were written.

        A verdict already stored in the batch for the same run, rubric version and model is
        replaced (the later one wins), so recording again never duplicates — except that an
        unscored verdict never replaces a scored one. Without a batch
        the verdicts go to the store's one "unbatched" batch.
        """
        batch = self._unbatched() if batch_id is None else batch_id
        return self._upsert(
            schema.verdicts,
            schema.VERDICT_KEY,
            (_verdict_row(v, batch) for v in verdicts),
            statement=verdict_upsert(self._dialect),
        )

    def record_runs(self, runs: Iterable[Run], batch_id: int) -> int:
        """Record runs (whole, so a judge can be asked about them again) in a batch."""
        now = datetime.now(UTC)
        return self._upsert(schema.runs, schema.RUN_KEY, (_run_row(r, batch_id, now) for r in runs))

    def record_grades(
        self, grades: Iterable[Grade], batch_id: int, *, at: datetime | None = None
    ) -> int:
        """Record grades in a batch, timed ``at`` (default: now) for the monitor."""
        when = at or datetime.now(UTC)
        return self._upsert(
            schema.grades, schema.GRADE_KEY, (_grade_row(g, batch_id, when) for g in grades)
        )

    def record_calibration(self, report: Mapping[str, Any], *, at: datetime | None = None) -> None:
        """Record a calibration report (the dict ``judgekit calibrate --json`` prints);
        the same report twice is kept once."""
        body = json.dumps(report, sort_keys=True, default=str)
        interval = report.get("kappa_ci") or [None, None]
        row = {
            "rubric_id": report["rubric_id"],
            "rubric_version": report["rubric_version"],
            "model": report.get("model") or "",
            "at": at or datetime.now(UTC),
            "n": int(report.get("n") or 0),
            "agreement": report.get("agreement"),
            "kappa": report.get("kappa"),
            "kappa_low": interval[0],
            "kappa_high": interval[1],
            "promotable": bool(report.get("promotable")),
            "digest": hashlib.sha256(body.encode()).hexdigest(),
            "data": json.loads(body),
        }
        table = schema.calibrations
        statement = _insert_ignoring(table, ["rubric_id", "digest"], self._dialect)
        with store_errors(self._engine.url), self._engine.begin() as connection:
            connection.execute(statement, self._storable([row]))

    def record_promotion(
        self,
        record: Mapping[str, Any],
        *,
        status: str = "promoted",
        reason: str | None = None,
        at: datetime | None = None,
    ) -> None:
        """Record a promotion (the record ``judgekit promote`` writes) or, with status
        ``stale``, the recheck that found its judge drifted."""
        row = {
            "rubric_id": record["rubric_id"],
            "rubric_version": record["rubric_version"],
            "model": record.get("model") or "",
            "at": at or datetime.now(UTC),
            "status": status,
            "kappa": record.get("kappa"),
            "reason": reason,
            "data": json.loads(json.dumps(record, default=str)),
        }
        key = ["rubric_id", "rubric_version", "model", "at"]
        statement = _insert_ignoring(schema.promotions, key, self._dialect)
        with store_errors(self._engine.url), self._engine.begin() as connection:
            connection.execute(statement, self._storable([row]))

    def _upsert(
        self,
        table: Table,
        key: Sequence[str],
        rows: Iterable[dict[str, Any]],
        *,
        statement: Insert | None = None,
    ) -> int:
        statement = upsert(table, key, self._dialect) if statement is None else statement
        written = 0
        with store_errors(self._engine.url), self._engine.begin() as connection:
            for chunk in _chunks(rows, _CHUNK):
                # Keep the last of duplicates: one multi-row upsert may not touch a row twice
                # on PostgreSQL.
                unique = {tuple(row[name] for name in key): row for row in chunk}
                connection.execute(statement, self._storable(list(unique.values())))
                written += len(unique)
        return written

    @property
    def _dialect(self) -> str:
        return self._engine.dialect.name

    def _storable(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """PostgreSQL cannot hold a NUL character in text or JSON, and agent output may
        contain one: there it becomes U+FFFD (the replacement character), so a stray byte
        in a transcript is kept visible instead of failing the whole batch."""
        if self._dialect != "postgresql":
            return rows
        return [_without_nul(row) for row in rows]

    # -- reads -----------------------------------------------------------------------------

    def verdicts(
        self,
        rubric_id: str,
        *,
        rubric_version: str | None = None,
        model: str | None = None,
        history: bool = False,
    ) -> list[Verdict]:
        """A rubric's verdicts, oldest first, optionally of one rubric version and judge model.

        A run judged again in a later batch (the same run id, version and model) counts
        once, by its latest verdict, unless ``history`` asks for every one.
        """
        table = schema.verdicts
        query = select(table).where(table.c.rubric_id == rubric_id)
        if rubric_version is not None:
            query = query.where(table.c.rubric_version == rubric_version)
        if model is not None:
            query = query.where(table.c.model == model)
        query = query.order_by(table.c.at, table.c.id)
        with store_errors(self._engine.url), self._engine.connect() as connection:
            rows = connection.execute(query).mappings().all()
        drop = ("id", "batch_id", "score_value", "day")
        found = [self._model(Verdict, "verdicts", dict(row), drop) for row in rows]
        if history:
            return found
        latest: dict[tuple[str, str, str], Verdict] = {}
        for verdict in found:  # oldest first: the last one seen wins
            latest[(verdict.run_id, verdict.rubric_version, verdict.model)] = verdict
        return sorted(latest.values(), key=lambda v: v.at)

    def runs(self, run_ids: Iterable[str] | None = None) -> dict[str, Run]:
        """Stored runs by run id, the latest recording of each (optionally only some ids)."""
        table = schema.runs
        query = select(table.c.id, table.c.data).order_by(table.c.at, table.c.id)
        queries = [query]
        if run_ids is not None:
            # Some ids per query: each id in IN (...) is a parameter, and PostgreSQL refuses a
            # statement with more than 65,535 ("number of parameters must be between 0 and
            # 65535"). A run id is in one part only, so each part finds its latest recordings.
            wanted = sorted(set(run_ids))
            queries = [
                query.where(table.c.run_id.in_(wanted[start : start + IDS_PER_QUERY]))
                for start in range(0, len(wanted), IDS_PER_QUERY)
            ]
        found: dict[str, Run] = {}
        with store_errors(self._engine.url), self._engine.connect() as connection:
            for part in queries:
                for row in connection.execute(part).mappings():
                    run = self._model(Run, "runs", row["data"] | {"_row": row["id"]}, ("_row",))
                    found[run.run_id] = run
        return found

    def grades(self, batch_id: int) -> list[Grade]:
        """The grades of one batch, in the order they were recorded."""
        table = schema.grades
        query = select(table.c.id, table.c.data).where(table.c.batch_id == batch_id)
        with store_errors(self._engine.url), self._engine.connect() as connection:
            rows = connection.execute(query.order_by(table.c.id)).mappings().all()
        return [
            self._model(Grade, "grades", r["data"] | {"_row": r["id"]}, ("_row",)) for r in rows
        ]

    def count(self, table_name: str) -> int:
        """How many rows a table holds (for reports and tests)."""
        table = schema.metadata.tables[table_name]
        with store_errors(self._engine.url), self._engine.connect() as connection:
            return int(connection.execute(select(func.count()).select_from(table)).scalar_one())

    def _model(
        self, model: type[Model], table: str, row: Mapping[str, Any], drop: Sequence[str]
    ) -> Model:
        fields = {k: v for k, v in row.items() if k not in drop}
        try:
            return model.model_validate(fields)
        except ValidationError as exc:
            where = row.get("id", row.get("_row"))
            raise StoreError(
                f"{self.url}: {table} row {where} is not a valid {model.__name__.lower()}: "
                f"{exc.errors()[0]['msg']}"
            ) from exc

    # -- lifetime --------------------------------------------------------------------------

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


def upsert(table: Table, key: Sequence[str], dialect_name: str) -> Insert:
    """``INSERT … ON CONFLICT (key) DO UPDATE`` replacing every other column, in the
    dialect's own syntax."""
    replaced = [c.name for c in table.columns if c.name != "id" and c.name not in key]
    statement = _dialect_insert(table, dialect_name)
    return statement.on_conflict_do_update(
        index_elements=list(key), set_={name: statement.excluded[name] for name in replaced}
    )


def verdict_upsert(dialect_name: str) -> Insert:
    """The upsert :meth:`Store.record_verdicts` writes with: a later verdict replaces the
    stored one, except that an unscored verdict never replaces a scored one (a judge that
    answered off the scale this time does not erase the verdict it gave before)."""
    table = schema.verdicts
    replaced = [
        c.name for c in table.columns if c.name != "id" and c.name not in schema.VERDICT_KEY
    ]
    statement = _dialect_insert(table, dialect_name)
    return statement.on_conflict_do_update(
        index_elements=list(schema.VERDICT_KEY),
        set_={name: statement.excluded[name] for name in replaced},
        where=(statement.excluded.status == "scored") | (table.c.status != "scored"),
    )


def _insert_ignoring(table: Table, key: Sequence[str], dialect_name: str) -> Insert:
    """``INSERT … ON CONFLICT (key) DO NOTHING``: safe when two processes insert at once."""
    return _dialect_insert(table, dialect_name).on_conflict_do_nothing(index_elements=list(key))


def _dialect_insert(table: Table, dialect_name: str) -> sqlite.Insert | postgresql.Insert:
    """The dialect's own INSERT, the one that knows ``ON CONFLICT``."""
    if dialect_name == "sqlite":
        return sqlite.insert(table)
    if dialect_name == "postgresql":
        return postgresql.insert(table)
    raise StoreError(f"the store supports {' and '.join(SUPPORTED_BACKENDS)}, not {dialect_name}")


def _verdict_row(verdict: Verdict, batch_id: int) -> dict[str, Any]:
    # JSON mode turns score and samples into plain JSON values; `at` stays a datetime for
    # the UtcDateTime column.
    row = verdict.model_dump(mode="json")
    row["at"] = verdict.at
    row["day"] = utc_day(verdict.at)
    row["batch_id"] = batch_id
    row["score_value"] = schema.score_value(verdict.score) if verdict.status == "scored" else None
    return row


def _run_row(run: Run, batch_id: int, at: datetime) -> dict[str, Any]:
    usage = run.usage
    return {
        "batch_id": batch_id,
        "run_id": run.run_id,
        "task_id": run.task_id,
        "trial": run.trial,
        "stop_reason": run.stop_reason,
        "turns": run.turns,
        "cost_usd": run.cost_usd,
        "input_tokens": usage.input_tokens if usage else None,
        "output_tokens": usage.output_tokens if usage else None,
        "duration_s": run.duration_s,
        "at": at,
        "data": run.model_dump(mode="json", exclude_defaults=True),
    }


def _grade_row(grade: Grade, batch_id: int, at: datetime) -> dict[str, Any]:
    return {
        "batch_id": batch_id,
        "run_id": grade.run_id,
        "task_id": grade.task_id,
        "trial": grade.trial,
        "passed": grade.passed,
        "truth_passed": grade.truth.passed if grade.truth else None,
        "path_passed": grade.path.passed if grade.path else None,
        "state_passed": grade.state.passed if grade.state else None,
        "claimed_success": grade.claimed_success,
        "turns": grade.turns,
        "cost_usd": grade.cost_usd,
        "stop_reason": grade.stop_reason,
        "tool_calls": grade.tool_calls,
        "tool_errors": grade.tool_errors,
        "at": at,
        "day": utc_day(at),
        "data": grade.model_dump(mode="json", exclude_defaults=True),
    }


def utc_day(moment: datetime) -> str:
    """``YYYY-MM-DD`` of ``moment`` in UTC (a naive time is taken as UTC, as the store does).

    >>> from datetime import timedelta, timezone
    >>> utc_day(datetime(2026, 11, 29, 23, 30, tzinfo=timezone(timedelta(hours=-5))))
    '2026-11-30'
    """
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return utc.date().isoformat()


def _without_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nul(item) for item in value]
    return value


def _chunks(items: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
