"""The store's tables as the code reads and writes them today (SQLAlchemy Core).

The migrations in :mod:`judgekit.store.migrations` build these tables in the database; a test
checks that a freshly migrated database has exactly the columns described here.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.types import DateTime, TypeEngine

from judgekit.store.score_value import score_value as score_value

# One verdict per batch, run, rubric version and judge model: recording it again replaces it.
VERDICT_KEY: Final = ("batch_id", "run_id", "rubric_id", "rubric_version", "model")
RUN_KEY: Final = ("batch_id", "run_id")
GRADE_KEY: Final = ("batch_id", "run_id")


class UtcDateTime(TypeDecorator[datetime]):
    """A point in time, stored in UTC and read back timezone-aware (UTC).

    SQLAlchemy's ``DateTime`` drops the offset on SQLite, so there it is ISO-8601 text of a
    fixed width (sorting the text sorts the times); PostgreSQL gets ``timestamptz``. A naive
    datetime is taken to be UTC, the zone judgekit writes every timestamp in.
    """

    impl = String(32)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(DateTime(timezone=True))
        return dialect.type_descriptor(String(32))

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        utc = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        if dialect.name == "postgresql":
            return utc
        return utc.isoformat(timespec="microseconds")

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        moment = value if isinstance(value, datetime) else datetime.fromisoformat(value)
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def json_column() -> JSON:
    """JSON text on SQLite, JSONB on PostgreSQL (indexable); Python None is SQL NULL."""
    return JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


metadata = MetaData()

migrations = Table(
    "migrations",
    metadata,
    Column("name", String(200), primary_key=True),
    Column("applied_at", UtcDateTime(), nullable=False),
)

batches = Table(
    "batches",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("git_sha", String(64)),
    Column("agent_version", String(200)),
    Column("tags", json_column()),
    # What the batch evaluated, e.g. "runs:<sha256 of runs.jsonl>": recording the same runs
    # again finds the same batch, so nothing is counted twice. NULL for ad-hoc batches.
    Column("batch_key", String(200)),
    Column("branch", String(200)),
    Column("source", String(40)),
    Index("uq_batches_batch_key", "batch_key", unique=True),
    Index("ix_batches_branch", "branch", "created_at"),
)


def verdict_columns() -> list[Column[Any]]:
    """The verdicts table's columns, new objects on each call (a column belongs to one table).

    Migration 0002 builds the table from exactly these, and 0001 from all of them but the two
    0002 added (:data:`VERDICT_COLUMNS_ADDED_BY_0002`), so the list stays as 0002 left it: a
    later change to verdicts is a new migration, made on top of this list in :data:`verdicts`.
    """
    return [
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("run_id", String, nullable=False),
        Column("rubric_id", String, nullable=False),
        Column("rubric_version", String, nullable=False),
        Column("model", String, nullable=False),
        Column("status", String(16), nullable=False),
        Column("score", json_column()),
        # The score as a number for aggregates (pass 1, fail 0, a Likert point as itself; NULL
        # when unscored or not numeric), so the monitor sums in SQL without parsing JSON.
        Column("score_value", Float),
        Column("reason", Text),
        Column("samples", json_column()),
        Column("agreement", Float),
        Column("position_bias", Boolean),
        Column("unscored_reason", Text),
        Column("input_tokens", Integer, nullable=False),
        Column("output_tokens", Integer, nullable=False),
        Column("cost_usd", Float),
        Column("latency_s", Float),
        Column("cached", Boolean, nullable=False),
        Column("at", UtcDateTime(), nullable=False),
        # The UTC day of ``at`` (YYYY-MM-DD): the monitor groups by it straight off an index,
        # where grouping by an expression of ``at`` would sort every row first.
        Column("day", String(10), nullable=False),
        Column("batch_id", Integer, ForeignKey("batches.id"), nullable=False),
    ]


VERDICT_COLUMNS_ADDED_BY_0002: Final = ("score_value", "day")

verdicts = Table(
    "verdicts",
    metadata,
    *verdict_columns(),
    Column("confidence", Float),  # migration 0004
    Column("jurors", json_column()),  # migration 0006: a jury's verdict's jurors
    # Run ids repeat from one evaluation to the next ("shop/refund_full/3"), so a verdict is
    # one per batch as well: history is kept, and re-recording a batch replaces, not adds.
    UniqueConstraint(*VERDICT_KEY, name="uq_verdicts_batch_run_rubric_model"),
    # Reports read one rubric's verdicts over time.
    Index("ix_verdicts_rubric", "rubric_id", "rubric_version", "model", "at"),
)

# The verdicts' totals per rubric, version, model, UTC day and batch (migration 0005): what
# the monitor and the gate aggregate, kept current by every write (see
# :mod:`judgekit.store.migration_day_totals`), so they read a row a day, not every verdict.
verdict_day_totals = Table(
    "verdict_day_totals",
    metadata,
    Column("rubric_id", String, primary_key=True),
    Column("rubric_version", String, primary_key=True),
    Column("model", String, primary_key=True),
    Column("day", String(10), primary_key=True),
    Column("batch_id", Integer, primary_key=True, autoincrement=False),
    Column("verdicts", Integer, nullable=False),
    Column("scores", Integer, nullable=False),  # verdicts with a numeric score_value
    Column("score_sum", Float, nullable=False),
    Column("score_squares", Float, nullable=False),
    # Scores whose sums a double may not hold exactly: while any, read the verdicts instead.
    Column("inexact", Integer, nullable=False),
    Column("judged", Integer, nullable=False),  # scored or abstained
    Column("kept", Integer, nullable=False),  # scored
    sqlite_with_rowid=False,
)

# SQLite only (empty on PostgreSQL, whose triggers count every verdict as it is written): the
# newest verdict id folded into verdict_day_totals; queries read the verdicts past it.
verdict_day_totals_mark = Table(
    "verdict_day_totals_mark", metadata, Column("verdict_id", Integer, nullable=False)
)

# What judges spent per UTC day (migration 0006), for --max-cost-per-day: the settled cost
# and what requests in flight may still cost, read and written under a lock.
judge_spend_days = Table(
    "judge_spend_days",
    metadata,
    Column("day", String(10), primary_key=True),
    Column("spent_usd", Float, nullable=False),
    Column("reserved_usd", Float, nullable=False),
)

# The --rpm and --tpm buckets the processes using one store share (migration 0009): what
# each holds as of a moment on the database's clock, read and written under a lock.
rate_buckets = Table(
    "rate_buckets",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("level", Float, nullable=False),
    Column("at", Float, nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("batch_id", Integer, ForeignKey("batches.id"), nullable=False),
    Column("run_id", String, nullable=False),
    Column("task_id", String, nullable=False),
    Column("trial", Integer),
    Column("stop_reason", String(40)),
    Column("turns", Integer),
    Column("cost_usd", Float),
    Column("input_tokens", Integer),
    Column("output_tokens", Integer),
    Column("duration_s", Float),
    Column("at", UtcDateTime(), nullable=False),
    # The whole run as JSON: a judge can be asked about it again (``monitor --recheck``).
    Column("data", json_column(), nullable=False),
    # Last because migration 0008 added it: the shard ("I/N") that recorded the run; NULL
    # for a run recorded whole.
    Column("shard", String(24)),
    UniqueConstraint(*RUN_KEY, name="uq_runs_batch_run"),
    Index("ix_runs_run_id", "run_id"),
)

grades = Table(
    "grades",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("batch_id", Integer, ForeignKey("batches.id"), nullable=False),
    Column("run_id", String, nullable=False),
    Column("task_id", String, nullable=False),
    Column("trial", Integer),
    Column("passed", Boolean, nullable=False),
    Column("truth_passed", Boolean),
    Column("path_passed", Boolean),
    Column("state_passed", Boolean),
    Column("claimed_success", Boolean),
    Column("turns", Integer),
    Column("cost_usd", Float),
    Column("stop_reason", String(40)),
    Column("tool_calls", Integer, nullable=False),
    Column("tool_errors", Integer, nullable=False),
    Column("at", UtcDateTime(), nullable=False),
    Column("day", String(10), nullable=False),
    Column("data", json_column(), nullable=False),
    # Last because migration 0003 added it (ALTER TABLE appends); NULL: Answer not checked.
    Column("answer_passed", Boolean),
    UniqueConstraint(*GRADE_KEY, name="uq_grades_batch_run"),
    Index("ix_grades_at", "at"),
    Index("ix_grades_day", "day"),
)

calibrations = Table(
    "calibrations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("rubric_id", String, nullable=False),
    Column("rubric_version", String, nullable=False),
    Column("model", String, nullable=False),
    Column("at", UtcDateTime(), nullable=False),
    Column("n", Integer, nullable=False),
    Column("agreement", Float),
    Column("kappa", Float),
    Column("kappa_low", Float),
    Column("kappa_high", Float),
    Column("promotable", Boolean, nullable=False),
    # sha256 of the report: recording the same calibration twice keeps one row.
    Column("digest", String(64), nullable=False),
    Column("data", json_column(), nullable=False),
    UniqueConstraint("rubric_id", "digest", name="uq_calibrations_rubric_digest"),
    Index("ix_calibrations_rubric", "rubric_id", "at"),
)

promotions = Table(
    "promotions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("rubric_id", String, nullable=False),
    Column("rubric_version", String, nullable=False),
    Column("model", String, nullable=False),
    Column("at", UtcDateTime(), nullable=False),
    # "promoted", or "stale" when a recheck found the judge drifted from the labels.
    Column("status", String(16), nullable=False),
    Column("kappa", Float),
    Column("reason", Text),
    Column("data", json_column(), nullable=False),
    UniqueConstraint("rubric_id", "rubric_version", "model", "at", name="uq_promotions_event"),
    Index("ix_promotions_rubric", "rubric_id", "at"),
)
