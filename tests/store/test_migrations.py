"""Named migrations: recorded, applied once, each all-or-nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Connection, MetaData, Table, UniqueConstraint, create_engine, inspect, text

from judgekit.errors import StoreError
from judgekit.store import open_store, schema
from judgekit.store.migrations import MIGRATIONS, Migration, applied_migrations, apply_migrations


def _url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'store.sqlite'}"


def _create(table: str) -> Migration:
    def migrate(connection: Connection) -> None:
        connection.exec_driver_sql(f"CREATE TABLE {table} (x INTEGER)")

    return migrate


def test_opening_records_every_migration_once(tmp_path: Path) -> None:
    before = datetime.now(UTC)
    with open_store(_url(tmp_path)):
        pass
    with open_store(_url(tmp_path)) as store:
        recorded = applied_migrations(store.engine)
        assert apply_migrations(store.engine) == []
    assert [name for name, _ in recorded] == [name for name, _ in MIGRATIONS]
    for _, applied_at in recorded:
        assert applied_at.tzinfo is UTC
        assert before <= applied_at <= datetime.now(UTC)


def test_migrated_tables_are_the_ones_the_code_uses(tmp_path: Path) -> None:
    with open_store(_url(tmp_path)) as store:
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
            indexes = sorted(
                (i["name"], bool(i["unique"])) for i in inspector.get_indexes(table.name)
            )
            assert indexes == sorted((i.name, i.unique) for i in table.indexes), table.name
        assert [u["column_names"] for u in inspector.get_unique_constraints("verdicts")] == [
            list(schema.VERDICT_KEY)
        ]


def test_verdicts_stored_before_batches_counted_are_kept_in_the_unbatched_batch(
    tmp_path: Path,
) -> None:
    url = _url(tmp_path)
    engine = create_engine(url)
    apply_migrations(engine, MIGRATIONS[:1])
    old = Table("verdicts", MetaData(), autoload_with=engine)
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
        "at": "2026-11-01T10:00:00.000000+00:00",
    }
    with engine.begin() as connection:
        connection.execute(old.insert(), [row, row | {"run_id": "shop/refund_full/4"}])
    engine.dispose()

    with open_store(url) as store:
        [batch] = store.batches()
        assert (batch.batch_key, batch.source) == ("unbatched", "legacy")
        kept = store.verdicts("goal_completion")
        assert [(v.run_id, v.score) for v in kept] == [
            ("shop/refund_full/3", "pass"),
            ("shop/refund_full/4", "pass"),
        ]
        # New verdicts without a batch join the same one, replacing rather than adding.
        store.record_verdicts([kept[0].model_copy(update={"score": "fail"})])
        assert store.count("verdicts") == 2
        assert [v.score for v in store.verdicts("goal_completion")] == ["fail", "pass"]


def test_reopening_applies_only_the_missing_migrations(tmp_path: Path) -> None:
    with open_store(_url(tmp_path)) as store:
        later = [*MIGRATIONS, ("0002_extra", _create("extra"))]
        assert apply_migrations(store.engine, later) == ["0002_extra"]
        assert apply_migrations(store.engine, later) == []
        assert [n for n, _ in applied_migrations(store.engine)] == [n for n, _ in later]


def test_a_failing_migration_leaves_no_trace_and_keeps_the_earlier_ones(tmp_path: Path) -> None:
    def half_done(connection: Connection) -> None:
        connection.exec_driver_sql("CREATE TABLE half (x INTEGER)")
        raise RuntimeError("migration bug")

    with open_store(_url(tmp_path)) as store:
        broken = [*MIGRATIONS, ("0002_extra", _create("extra")), ("0003_half", half_done)]
        with pytest.raises(RuntimeError, match="migration bug"):
            apply_migrations(store.engine, broken)
        names = [n for n, _ in applied_migrations(store.engine)]
        assert names[-1] == "0002_extra"
        # The CREATE TABLE was rolled back with the failed migration: DDL is transactional.
        assert "half" not in inspect(store.engine).get_table_names()
        assert "extra" in inspect(store.engine).get_table_names()

        fixed = [*broken[:-1], ("0003_half", _create("half"))]
        assert apply_migrations(store.engine, fixed) == ["0003_half"]


def test_a_database_from_a_newer_judgekit_is_refused(tmp_path: Path) -> None:
    with open_store(_url(tmp_path)) as store, store.engine.begin() as connection:
        connection.execute(
            text("INSERT INTO migrations (name, applied_at) VALUES ('9999_future', :at)"),
            {"at": datetime.now(UTC).isoformat()},
        )
    with pytest.raises(StoreError, match=r"9999_future.*upgrade judgekit"):
        open_store(_url(tmp_path))
