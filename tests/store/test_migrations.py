"""Named migrations: recorded, applied once, each all-or-nothing, on both backends."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import (
    Column,
    Connection,
    MetaData,
    Table,
    UniqueConstraint,
    create_engine,
    insert,
    inspect,
    select,
)

from judgekit.errors import StoreError
from judgekit.store import open_store, schema
from judgekit.store.migrations import MIGRATIONS, Migration, applied_migrations, apply_migrations
from judgekit.store.schema import UtcDateTime


def _create(table: str) -> Migration:
    def migrate(connection: Connection) -> None:
        connection.exec_driver_sql(f"CREATE TABLE {table} (x INTEGER)")

    return migrate


def test_opening_records_every_migration_once(store_url: str) -> None:
    before = datetime.now(UTC)
    with open_store(store_url):
        pass
    with open_store(store_url) as store:
        recorded = applied_migrations(store.engine)
        assert apply_migrations(store.engine) == []
    assert [name for name, _ in recorded] == [name for name, _ in MIGRATIONS]
    for _, applied_at in recorded:
        assert applied_at.tzinfo is UTC
        assert before <= applied_at <= datetime.now(UTC)


def test_migrated_tables_are_the_ones_the_code_uses(store_url: str) -> None:
    with open_store(store_url) as store:
        inspector = inspect(store.engine)
        assert set(inspector.get_table_names()) == set(schema.metadata.tables)
        for table in schema.metadata.sorted_tables:
            columns = [c["name"] for c in inspector.get_columns(table.name)]
            assert columns == [c.name for c in table.columns], table.name
            uniques = sorted(
                u["column_names"] for u in inspector.get_unique_constraints(table.name)
            )
            expected = sorted(
                [c.name for c in constraint.columns]
                for constraint in table.constraints
                if isinstance(constraint, UniqueConstraint)
            )
            assert uniques == expected, table.name
            # PostgreSQL also lists the index behind each unique constraint (checked above).
            indexes = sorted(
                (i["name"], bool(i["unique"]))
                for i in inspector.get_indexes(table.name)
                if not i.get("duplicates_constraint")
            )
            assert indexes == sorted((i.name, i.unique) for i in table.indexes), table.name
            foreign_keys = sorted(
                (tuple(k["constrained_columns"]), k["referred_table"], tuple(k["referred_columns"]))
                for k in inspector.get_foreign_keys(table.name)
            )
            assert foreign_keys == sorted(
                (
                    tuple(c.name for c in k.columns),
                    k.referred_table.name,
                    tuple(e.column.name for e in k.elements),
                )
                for k in table.foreign_key_constraints
            ), table.name
        assert [u["column_names"] for u in inspector.get_unique_constraints("verdicts")] == [
            list(schema.VERDICT_KEY)
        ]


def test_verdicts_stored_before_batches_counted_are_kept_in_the_unbatched_batch(
    store_url: str,
) -> None:
    engine = create_engine(store_url)
    apply_migrations(engine, MIGRATIONS[:1])
    # Reflected as the first migration left it, but `at` written the way the store writes
    # times (text on SQLite, timestamptz on PostgreSQL).
    old = Table("verdicts", MetaData(), Column("at", UtcDateTime()), autoload_with=engine)
    row = {
        "run_id": "shop/refund_full/3",
        "rubric_id": "goal_completion",
        "rubric_version": "v1",
        "model": "openai/gpt-4o-mini",
        "status": "scored",
        "score": "pass",
        "input_tokens": 10,
        "output_tokens": 2,
        "cached": False,
        "at": datetime(2026, 11, 1, 10, tzinfo=UTC),
    }
    with engine.begin() as connection:
        connection.execute(old.insert(), [row, row | {"run_id": "shop/refund_full/4"}])
    engine.dispose()

    with open_store(store_url) as store:
        [batch] = store.batches()
        assert (batch.batch_key, batch.source) == ("unbatched", "legacy")
        kept = store.verdicts("goal_completion")
        assert [(v.run_id, v.score, v.at) for v in kept] == [
            ("shop/refund_full/3", "pass", row["at"]),
            ("shop/refund_full/4", "pass", row["at"]),
        ]
        # New verdicts without a batch join the same one, replacing rather than adding.
        store.record_verdicts([kept[0].model_copy(update={"score": "fail"})])
        assert store.count("verdicts") == 2
        assert store.count("batches") == 1
        assert [v.score for v in store.verdicts("goal_completion")] == ["fail", "pass"]


def test_grades_stored_before_answer_was_a_column_get_it_from_their_json(
    store_url: str,
) -> None:
    engine = create_engine(store_url)
    apply_migrations(engine, MIGRATIONS[:2])
    tables = MetaData()
    # Reflected as migration 0002 left them, `at` and `data` typed the way the store writes.
    Table("batches", tables, Column("created_at", UtcDateTime()), autoload_with=engine)
    grades = Table(
        "grades",
        tables,
        Column("at", UtcDateTime()),
        Column("data", schema.json_column()),
        autoload_with=engine,
    )
    assert "answer_passed" not in grades.c
    base = {"task_id": "t", "passed": True, "tool_calls": 0, "tool_errors": 0, "day": "2026-11-01"}
    datas = {
        "r/1": {"answer": {"passed": True, "reason": "told the user every expected value"}},
        "r/2": {"answer": {"passed": False, "reason": "answer: missing '40'"}},
        "r/3": {"truth": {"passed": True, "reason": "all expected calls made"}},
        "r/4": {"answer": None},
    }
    with engine.begin() as connection:
        batch = connection.execute(
            insert(tables.tables["batches"]).values(created_at=datetime.now(UTC))
        ).inserted_primary_key[0]
        connection.execute(
            insert(grades),
            [
                base | {"batch_id": batch, "run_id": run_id, "at": datetime.now(UTC), "data": data}
                for run_id, data in datas.items()
            ],
        )
    engine.dispose()

    with open_store(store_url) as store:
        table = schema.grades
        with store.engine.connect() as connection:
            rows = connection.execute(
                select(table.c.run_id, table.c.answer_passed).order_by(table.c.id)
            ).all()
    assert [tuple(row) for row in rows] == [
        ("r/1", True),
        ("r/2", False),
        ("r/3", None),
        ("r/4", None),
    ]


def test_reopening_applies_only_the_missing_migrations(store_url: str) -> None:
    with open_store(store_url) as store:
        later = [*MIGRATIONS, ("0099_extra", _create("extra"))]
        assert apply_migrations(store.engine, later) == ["0099_extra"]
        assert apply_migrations(store.engine, later) == []
        assert [n for n, _ in applied_migrations(store.engine)] == [n for n, _ in later]
        assert "extra" in inspect(store.engine).get_table_names()


def test_a_failing_migration_leaves_no_trace_and_keeps_the_earlier_ones(store_url: str) -> None:
    def half_done(connection: Connection) -> None:
        connection.exec_driver_sql("CREATE TABLE half (x INTEGER)")
        raise RuntimeError("migration bug")

    with open_store(store_url) as store:
        broken = [*MIGRATIONS, ("0099_extra", _create("extra")), ("0100_half", half_done)]
        with pytest.raises(RuntimeError, match=r"^migration bug$"):
            apply_migrations(store.engine, broken)
        names = [n for n, _ in applied_migrations(store.engine)]
        assert names == [n for n, _ in broken[:-1]]
        # The CREATE TABLE was rolled back with the failed migration: DDL is transactional.
        tables = inspect(store.engine).get_table_names()
        assert "half" not in tables
        assert "extra" in tables

        fixed = [*broken[:-1], ("0100_half", _create("half"))]
        assert apply_migrations(store.engine, fixed) == ["0100_half"]
        assert "half" in inspect(store.engine).get_table_names()


def test_a_database_from_a_newer_judgekit_is_refused(store_url: str) -> None:
    with open_store(store_url) as store, store.engine.begin() as connection:
        connection.execute(
            insert(schema.migrations).values(name="9999_future", applied_at=datetime.now(UTC))
        )
        where = store.url
    with pytest.raises(StoreError) as caught:
        open_store(store_url)
    assert str(caught.value) == (
        f"{where}: the database has migrations this judgekit does not know (9999_future); "
        "upgrade judgekit to use it"
    )


def test_verdicts_stored_before_confidence_was_a_column_keep_none(store_url: str) -> None:
    engine = create_engine(store_url)
    apply_migrations(engine, MIGRATIONS[:3])
    tables = MetaData()
    Table("batches", tables, Column("created_at", UtcDateTime()), autoload_with=engine)
    verdicts = Table("verdicts", tables, Column("at", UtcDateTime()), autoload_with=engine)
    assert "confidence" not in verdicts.c
    with engine.begin() as connection:
        batch = connection.execute(
            insert(tables.tables["batches"]).values(created_at=datetime.now(UTC))
        ).inserted_primary_key[0]
        connection.execute(
            insert(verdicts).values(
                batch_id=batch,
                run_id="r/1",
                rubric_id="goal_completion",
                rubric_version="3f2a9c",
                model="openai/gpt-4o-mini",
                status="scored",
                input_tokens=0,
                output_tokens=0,
                cached=False,
                at=datetime.now(UTC),
                day="2026-11-01",
            )
        )
    engine.dispose()
    with open_store(store_url) as store:
        assert "0004_verdicts_confidence" in [n for n, _ in applied_migrations(store.engine)]
        (verdict,) = store.verdicts("goal_completion")
    assert (verdict.run_id, verdict.status, verdict.confidence) == ("r/1", "scored", None)
