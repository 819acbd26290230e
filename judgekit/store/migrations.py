"""Named migrations that bring a store's database to the shape :mod:`judgekit.store.schema`
describes (the sqlite-utils way).

A migration is a ``(name, function)`` pair. Opening a store applies, in order, every migration
whose name is not yet in the ``migrations`` table, each in its own transaction together with
the row that records it: a migration that fails leaves the database as it was before it, and
two processes opening a new database at once apply each migration exactly once.

A released migration is never edited or renamed; a change to the tables is a new migration
appended to :data:`MIGRATIONS`, written against the tables as they were at that point. That is
why the migrations spell their tables out rather than reusing ``schema.py``, which moves on —
except the verdicts' columns, which :func:`judgekit.store.schema.verdict_columns` keeps as
migration 0002 left them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Final

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    bindparam,
    func,
    insert,
    inspect,
    select,
)
from sqlalchemy.exc import IntegrityError, ProgrammingError
from sqlalchemy.schema import CreateTable

from judgekit.errors import StoreError
from judgekit.store import schema
from judgekit.store.migration_answer import add_grades_answer_passed
from judgekit.store.migration_confidence import add_verdicts_confidence
from judgekit.store.migration_day_totals import add_verdict_day_totals
from judgekit.store.migration_jurors import add_verdicts_jurors
from judgekit.store.migration_rate_buckets import add_rate_buckets
from judgekit.store.migration_shard import add_runs_shard
from judgekit.store.migration_spend_days import add_judge_spend_days
from judgekit.store.schema import UtcDateTime, json_column, score_value

Migration = Callable[[Connection], None]


def _create_batches_and_verdicts(connection: Connection) -> None:
    """The first tables: batches of verdicts and the verdicts themselves."""
    tables = MetaData()
    Table(
        "batches",
        tables,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("created_at", UtcDateTime(), nullable=False),
        Column("git_sha", String(64)),
        Column("agent_version", String(200)),
        Column("tags", json_column()),
    )
    # The columns of today but those 0002 added, and batch_id (the last one) still optional:
    # verdicts could be recorded without a batch.
    later = (*schema.VERDICT_COLUMNS_ADDED_BY_0002, "batch_id")
    Table(
        "verdicts",
        tables,
        *(column for column in schema.verdict_columns() if column.name not in later),
        Column("batch_id", Integer, ForeignKey("batches.id")),
        UniqueConstraint(
            "run_id", "rubric_id", "rubric_version", "model", name="uq_verdicts_run_rubric_model"
        ),
        Index("ix_verdicts_rubric", "rubric_id", "rubric_version", "model", "at"),
    )
    # checkfirst=False: a table that exists without its migration record is a surprise to
    # report, not something to adopt silently.
    tables.create_all(connection, checkfirst=False)


UNBATCHED_KEY: Final = "unbatched"
"""The batch of verdicts recorded without one (and of those stored before batches counted)."""


def _runs_grades_calibrations_promotions(connection: Connection) -> None:
    """Batches learn what they evaluated; verdicts become one per batch (run ids repeat from
    one evaluation to the next); runs, grades, calibrations and promotions get tables."""
    _batches_learn_what_they_evaluated(connection)
    _unbatched_verdicts_join_one_batch(connection)
    _verdicts_one_per_batch(connection)
    _create_runs_and_grades(connection)
    _create_calibrations_and_promotions(connection)


def _batches_learn_what_they_evaluated(connection: Connection) -> None:
    """A batch gets its key (what it evaluated), its branch and the command that made it."""
    connection.exec_driver_sql("ALTER TABLE batches ADD COLUMN batch_key VARCHAR(200)")
    connection.exec_driver_sql("ALTER TABLE batches ADD COLUMN branch VARCHAR(200)")
    connection.exec_driver_sql("ALTER TABLE batches ADD COLUMN source VARCHAR(40)")
    connection.exec_driver_sql("CREATE UNIQUE INDEX uq_batches_batch_key ON batches (batch_key)")
    connection.exec_driver_sql("CREATE INDEX ix_batches_branch ON batches (branch, created_at)")


def _unbatched_verdicts_join_one_batch(connection: Connection) -> None:
    """Verdicts stored without a batch go to a new "unbatched" batch: batch_id becomes
    required."""
    tables = MetaData()
    batches = Table("batches", tables, autoload_with=connection)
    old = Table("verdicts", tables, autoload_with=connection)
    if connection.execute(select(old.c.id).where(old.c.batch_id.is_(None)).limit(1)).first():
        row = {"created_at": datetime.now(UTC), "batch_key": UNBATCHED_KEY, "source": "legacy"}
        inserted = connection.execute(insert(batches).values(**row)).inserted_primary_key
        unbatched = inserted[0] if inserted else None
        connection.execute(old.update().where(old.c.batch_id.is_(None)).values(batch_id=unbatched))


def _verdicts_one_per_batch(connection: Connection) -> None:
    """Verdicts move to a table where they are one per batch, run, rubric version and model,
    with their score as a number and their UTC day."""
    old = Table("verdicts", MetaData(), autoload_with=connection)
    replacement = Table(
        "verdicts_v2",
        _with_batches(),
        *schema.verdict_columns(),
        UniqueConstraint(
            "batch_id",
            "run_id",
            "rubric_id",
            "rubric_version",
            "model",
            name="uq_verdicts_batch_run_rubric_model",
        ),
    )
    replacement.create(connection)
    _copy_verdicts(connection, old, replacement)
    _fill_score_values(connection, replacement)
    old.drop(connection)
    connection.exec_driver_sql("ALTER TABLE verdicts_v2 RENAME TO verdicts")
    connection.exec_driver_sql(
        "CREATE INDEX ix_verdicts_rubric ON verdicts (rubric_id, rubric_version, model, at)"
    )
    connection.exec_driver_sql(
        "CREATE INDEX ix_verdicts_rubric_day ON verdicts "
        "(rubric_id, rubric_version, model, day, score_value)"
    )


def _copy_verdicts(connection: Connection, old: Table, replacement: Table) -> None:
    """Every verdict into ``replacement``, with the day of its time."""
    added = schema.VERDICT_COLUMNS_ADDED_BY_0002
    names = [c.name for c in replacement.columns if c.name not in added]
    # The day is the first ten characters of the ISO-8601 UTC text SQLite holds; a
    # PostgreSQL timestamptz is turned into that text first.
    at_text = (
        old.c.at
        if connection.dialect.name == "sqlite"
        else func.to_char(func.timezone("UTC", old.c.at), "YYYY-MM-DD")
    )
    connection.execute(
        insert(replacement).from_select(
            [*names, "day"],
            select(*(old.c[name] for name in names), func.substr(at_text, 1, 10)),
        )
    )


def _fill_score_values(connection: Connection, table: Table) -> None:
    """Each scored verdict's score as a number (:func:`score_value`), computed in Python."""
    scored = connection.execute(
        select(table.c.id, table.c.score).where(table.c.score.is_not(None))
    ).all()
    values = [{"row": row, "value": score_value(score)} for row, score in scored]
    if values:
        connection.execute(
            table.update()
            .where(table.c.id == bindparam("row"))
            .values(score_value=bindparam("value")),
            values,
        )


def _with_batches() -> MetaData:
    """Tables to be made, knowing of batches as much as a foreign key needs: its id."""
    tables = MetaData()
    Table("batches", tables, Column("id", Integer, primary_key=True))
    return tables


def _create_runs_and_grades(connection: Connection) -> None:
    """Runs (whole, so a judge can be asked again) and their grades, one per batch."""
    tables = _with_batches()
    Table(
        "runs",
        tables,
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
        Column("data", json_column(), nullable=False),
        UniqueConstraint("batch_id", "run_id", name="uq_runs_batch_run"),
        Index("ix_runs_run_id", "run_id"),
    )
    Table(
        "grades",
        tables,
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
        UniqueConstraint("batch_id", "run_id", name="uq_grades_batch_run"),
        Index("ix_grades_at", "at"),
        Index("ix_grades_day", "day"),
    )
    for name in ("runs", "grades"):
        tables.tables[name].create(connection)


def _create_calibrations_and_promotions(connection: Connection) -> None:
    """Calibration reports (one per digest) and promotions (one per event)."""
    tables = MetaData()
    Table(
        "calibrations",
        tables,
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
        Column("digest", String(64), nullable=False),
        Column("data", json_column(), nullable=False),
        UniqueConstraint("rubric_id", "digest", name="uq_calibrations_rubric_digest"),
        Index("ix_calibrations_rubric", "rubric_id", "at"),
    )
    Table(
        "promotions",
        tables,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("rubric_id", String, nullable=False),
        Column("rubric_version", String, nullable=False),
        Column("model", String, nullable=False),
        Column("at", UtcDateTime(), nullable=False),
        Column("status", String(16), nullable=False),
        Column("kappa", Float),
        Column("reason", Text),
        Column("data", json_column(), nullable=False),
        UniqueConstraint("rubric_id", "rubric_version", "model", "at", name="uq_promotions_event"),
        Index("ix_promotions_rubric", "rubric_id", "at"),
    )
    for name in ("calibrations", "promotions"):
        tables.tables[name].create(connection)


MIGRATIONS: Final[tuple[tuple[str, Migration], ...]] = (
    ("0001_batches_and_verdicts", _create_batches_and_verdicts),
    ("0002_runs_grades_calibrations_promotions", _runs_grades_calibrations_promotions),
    ("0003_grades_answer_passed", add_grades_answer_passed),
    ("0004_verdicts_confidence", add_verdicts_confidence),
    ("0005_verdict_day_totals", add_verdict_day_totals),
    ("0006_judge_spend_days", add_judge_spend_days),
    ("0007_verdicts_jurors", add_verdicts_jurors),
    ("0008_runs_shard", add_runs_shard),
    ("0009_rate_buckets", add_rate_buckets),
)


def apply_migrations(
    engine: Engine, migrations: Sequence[tuple[str, Migration]] = MIGRATIONS
) -> list[str]:
    """Apply the migrations not yet recorded, in order; return the names applied now.

    Raises :class:`StoreError` when the database records a migration this judgekit does not
    know: a newer judgekit changed the tables, and writing with older code could damage them.
    """
    _create_migrations_table(engine)
    recorded = {name for name, _ in applied_migrations(engine)}
    unknown = sorted(recorded - {name for name, _ in migrations})
    if unknown:
        where = engine.url.render_as_string(hide_password=True)
        raise StoreError(
            f"{where}: the database has migrations this judgekit does not know "
            f"({', '.join(unknown)}); upgrade judgekit to use it"
        )
    applied_now: list[str] = []
    for name, migrate in migrations:
        if name in recorded:
            continue
        with engine.connect() as connection, connection.begin() as transaction:
            if not _claim(connection, name):
                transaction.rollback()
                continue
            migrate(connection)
        applied_now.append(name)
    return applied_now


def applied_migrations(engine: Engine) -> list[tuple[str, datetime]]:
    """Every recorded migration with the time it was applied, oldest first."""
    table = schema.migrations
    with engine.connect() as connection:
        rows = connection.execute(
            select(table.c.name, table.c.applied_at).order_by(table.c.applied_at, table.c.name)
        )
        return [(name, applied_at) for name, applied_at in rows]


def _claim(connection: Connection, name: str) -> bool:
    """Record ``name`` as applied, first thing in the migration's transaction.

    Writing first is what makes concurrent openers safe: on SQLite the write takes the
    database's write lock (waiting out the busy timeout) before anything is read, and on
    PostgreSQL a second process inserting the same name waits for the first to commit. The
    loser gets a duplicate key, meaning another process applied this migration meanwhile.
    """
    try:
        connection.execute(
            insert(schema.migrations).values(name=name, applied_at=datetime.now(UTC))
        )
    except IntegrityError:
        return False
    return True


def _create_migrations_table(engine: Engine) -> None:
    """Create the table that records migrations, unless it exists."""
    try:
        with engine.begin() as connection:
            connection.execute(CreateTable(schema.migrations, if_not_exists=True))
    except (IntegrityError, ProgrammingError):
        # PostgreSQL's IF NOT EXISTS can still collide with a concurrent creation of the
        # same table (a unique violation in its catalog, or "type already exists"); that is
        # fine as long as the table is there now.
        if not inspect(engine).has_table(schema.migrations.name):
            raise
