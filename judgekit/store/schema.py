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

# One verdict per run, rubric version and judge model: recording it again replaces it.
VERDICT_KEY: Final = ("run_id", "rubric_id", "rubric_version", "model")


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
)

verdicts = Table(
    "verdicts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String, nullable=False),
    Column("rubric_id", String, nullable=False),
    Column("rubric_version", String, nullable=False),
    Column("model", String, nullable=False),
    Column("status", String(16), nullable=False),
    Column("score", json_column()),
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
    Column("batch_id", Integer, ForeignKey("batches.id")),
    UniqueConstraint(*VERDICT_KEY, name="uq_verdicts_run_rubric_model"),
    # Reports read one rubric's verdicts over time; the unique key starts with run_id.
    Index("ix_verdicts_rubric", "rubric_id", "rubric_version", "model", "at"),
)
