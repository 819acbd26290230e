"""Recording and reading verdicts and batches; where the store lives; how it fails.

Every test that is not about SQLite itself runs on both backends (``store_url``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_mock_engine, make_url, select, text

from judgekit.errors import StoreError
from judgekit.formats.verdict import Verdict
from judgekit.store import Store, open_store, schema
from judgekit.store.statements import verdict_upsert
from tests.store.conftest import missing_batch_error
from tests.store.factories import AT, make_verdict


def test_a_verdict_round_trips_exactly(store: Store) -> None:
    verdict = make_verdict()
    assert store.record_verdicts([verdict]) == 1
    [back] = store.verdicts("goal_completion")
    assert back == verdict
    assert back.model_dump() == verdict.model_dump()
    assert back.at.tzinfo is UTC


def test_an_unscored_verdict_round_trips_with_its_nulls(store: Store) -> None:
    verdict = make_verdict(
        status="unscored",
        score=None,
        reason=None,
        samples=None,
        agreement=None,
        position_bias=None,
        unscored_reason="not JSON after one retry: 'I think it passes'",
        input_tokens=0,
        output_tokens=0,
        cost_usd=None,
        latency_s=None,
        cached=False,
    )
    store.record_verdicts([verdict])
    assert store.verdicts("goal_completion") == [verdict]


@pytest.mark.parametrize("score", [True, 0, 4, 3.5, "B", "tie", {"winner": "A"}, ["a", 1]])
def test_every_kind_of_score_round_trips(store: Store, score: Any) -> None:
    store.record_verdicts([make_verdict(score=score)])
    [back] = store.verdicts("goal_completion")
    assert back.score == score
    assert type(back.score) is type(score)


def test_times_are_kept_as_instants_in_utc(store: Store) -> None:
    paris = datetime(2026, 11, 29, 11, 2, 11, tzinfo=timezone(timedelta(hours=1)))
    store.record_verdicts(
        [make_verdict("a", at=paris), make_verdict("b", at=AT.replace(tzinfo=None))]
    )
    by_run = {v.run_id: v.at for v in store.verdicts("goal_completion")}
    assert by_run["a"] == paris
    assert by_run["a"].tzinfo is UTC
    # A naive time is taken as UTC, the zone judgekit writes.
    assert by_run["b"] == AT


def test_recording_the_same_verdict_again_does_not_duplicate_it(store: Store) -> None:
    verdict = make_verdict()
    store.record_verdicts([verdict])
    store.record_verdicts([verdict])
    assert store.count("verdicts") == 1
    assert store.verdicts("goal_completion") == [verdict]


def test_a_later_verdict_replaces_the_earlier_one(store: Store) -> None:
    store.record_verdicts([make_verdict()])
    later = make_verdict(score="fail", reason="no refund was issued", cached=False)
    store.record_verdicts([later])
    assert store.verdicts("goal_completion") == [later]


def test_a_verdict_repeated_within_one_call_is_written_once_last_wins(store: Store) -> None:
    first, last = make_verdict(score="pass"), make_verdict(score="fail")
    assert store.record_verdicts([first, last]) == 1
    assert store.verdicts("goal_completion") == [last]


def test_each_part_of_the_key_makes_a_separate_verdict(store: Store) -> None:
    verdicts = [
        make_verdict(),
        make_verdict(run_id="shop/refund_full/4"),
        make_verdict(rubric_version="9b1d00"),
        make_verdict(model="anthropic/claude-haiku"),
    ]
    assert store.record_verdicts(verdicts) == 4
    assert store.count("verdicts") == 4


def test_verdicts_filter_by_version_and_model_oldest_first(store: Store) -> None:
    newer = make_verdict("r1", at=AT + timedelta(hours=1))
    older = make_verdict("r2", at=AT)
    other_version = make_verdict("r1", rubric_version="new")
    other_model = make_verdict("r1", model="openai/gpt-4o")
    other_rubric = make_verdict("r1", rubric_id="tone")
    store.record_verdicts([newer, older, other_version, other_model, other_rubric])

    assert store.verdicts(
        "goal_completion", rubric_version="3f2a9c", model="openai/gpt-4o-mini"
    ) == [
        older,
        newer,
    ]
    assert store.verdicts("goal_completion", rubric_version="new") == [other_version]
    assert store.verdicts("goal_completion", model="openai/gpt-4o") == [other_model]
    assert len(store.verdicts("goal_completion")) == 4
    assert store.verdicts("missing") == []


def test_a_long_stream_of_verdicts_is_recorded(store: Store) -> None:
    stream = (make_verdict(f"run/{i}") for i in range(1234))
    assert store.record_verdicts(stream) == 1234
    assert store.count("verdicts") == 1234


def test_batches_group_verdicts(store: Store) -> None:
    first = store.new_batch(
        git_sha="abc123", agent_version="v2", tags={"branch": "main", "ci": True}
    )
    second = store.new_batch()
    assert second > first
    store.record_verdicts([make_verdict("a")], batch_id=first)
    store.record_verdicts([make_verdict("b")])
    with store.engine.connect() as connection:
        batch = connection.execute(select(schema.batches).where(schema.batches.c.id == first)).one()
        batch_ids = dict(
            connection.execute(select(schema.verdicts.c.run_id, schema.verdicts.c.batch_id)).all()
        )
    assert (batch.git_sha, batch.agent_version, batch.tags) == (
        "abc123",
        "v2",
        {"branch": "main", "ci": True},
    )
    assert batch.created_at.tzinfo is UTC
    [unbatched] = [b.id for b in store.batches() if b.batch_key == "unbatched"]
    assert batch_ids == {"a": first, "b": unbatched}


def test_the_same_run_judged_in_two_batches_keeps_both_and_reads_the_latest(store: Store) -> None:
    monday = store.batch(key="runs:monday")
    tuesday = store.batch(key="runs:tuesday")
    store.record_verdicts([make_verdict("shop/a/0", score="pass")], batch_id=monday)
    later = make_verdict("shop/a/0", score="fail", at=make_verdict().at.replace(day=30))
    store.record_verdicts([later], batch_id=tuesday)
    assert [v.score for v in store.verdicts("goal_completion", history=True)] == ["pass", "fail"]
    assert [v.score for v in store.verdicts("goal_completion")] == ["fail"]


def test_a_verdict_in_a_batch_that_does_not_exist_is_refused(store: Store) -> None:
    with pytest.raises(StoreError) as caught:
        store.record_verdicts([make_verdict()], batch_id=999)
    assert re.fullmatch(missing_batch_error(store, "verdicts", 999), str(caught.value))
    assert store.count("verdicts") == 0


def test_the_default_store_lives_in_judgekit_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUDGEKIT_DB", raising=False)
    with open_store() as store:
        store.record_verdicts([make_verdict()])
    assert (tmp_path / ".judgekit" / "judgekit.sqlite").is_file()


def test_judgekit_db_chooses_the_database_and_an_argument_overrides_it(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEKIT_DB", store_url)
    with open_store() as store:
        assert store.url == make_url(store_url).render_as_string(hide_password=True)
        store.record_verdicts([make_verdict()])
    given = tmp_path / "given.sqlite"
    with open_store(f"sqlite:///{given}") as store:
        assert store.url == f"sqlite:///{given}"
        assert store.count("verdicts") == 0
    with open_store(store_url) as store:
        assert store.count("verdicts") == 1
    assert not (tmp_path / ".judgekit" / "judgekit.sqlite").exists()


def test_a_sqlite_store_named_by_judgekit_db_gets_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEKIT_DB", f"sqlite:///{tmp_path / 'from_env' / 'db.sqlite'}")
    with open_store() as store:
        assert store.url.endswith("from_env/db.sqlite")
    assert (tmp_path / "from_env" / "db.sqlite").is_file()


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    with (
        open_store(f"sqlite:///{tmp_path / 'store.sqlite'}") as store,
        store.engine.connect() as connection,
    ):
        assert connection.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
        assert connection.execute(text("PRAGMA busy_timeout")).scalar_one() == 30_000
        assert connection.execute(text("PRAGMA foreign_keys")).scalar_one() == 1


def test_an_in_memory_store_works() -> None:
    with open_store("sqlite://") as store:
        assert store.record_verdicts([make_verdict()]) == 1
        assert len(store.verdicts("goal_completion")) == 1


@pytest.mark.parametrize("name", ["sqlite", "postgresql"])
def test_the_upsert_replaces_every_column_but_the_key(name: str) -> None:
    # A mock engine compiles for the dialect without its driver or a server.
    dialect = create_mock_engine(f"{name}://", executor=lambda *_: None).dialect
    sql = str(verdict_upsert(name).compile(dialect=dialect))
    assert "ON CONFLICT (batch_id, run_id, rubric_id, rubric_version, model) DO UPDATE" in sql
    updated = sql.split("DO UPDATE SET")[1]
    assert "score = excluded.score" in updated
    assert "at = excluded.at" in updated
    for kept in ("id", *schema.VERDICT_KEY):
        assert f" {kept} = " not in updated


def test_an_unsupported_dialect_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="supports sqlite and postgresql, not mysql"):
        verdict_upsert("mysql")
    with pytest.raises(StoreError, match="not mysql"):
        open_store("mysql://judge:hunter2@localhost/judgekit")


def test_a_damaged_file_is_a_store_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "damaged.sqlite"
    path.write_bytes(b"this is not a SQLite database" * 200)
    with pytest.raises(StoreError, match=r"damaged\.sqlite: file is not a database"):
        open_store(f"sqlite:///{path}")


def test_an_unreachable_database_never_shows_its_password() -> None:
    # Without a PostgreSQL driver installed this fails on the driver, with one on the
    # connection: either way a StoreError, and the password masked.
    with pytest.raises(StoreError) as caught:
        open_store("postgresql://judge:hunter2-SECRET@127.0.0.1:1/judgekit")
    assert "hunter2-SECRET" not in str(caught.value)
    assert "judge:***@127.0.0.1:1/judgekit" in str(caught.value)


def test_a_malformed_url_is_not_echoed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEKIT_DB", "postgresql://judge:hunter2-SECRET@host:notaport/db")
    with pytest.raises(StoreError, match="JUDGEKIT_DB is not a database URL") as caught:
        open_store()
    assert "hunter2-SECRET" not in str(caught.value)


def test_a_row_that_is_not_a_verdict_is_a_store_error(store: Store) -> None:
    store.record_verdicts([make_verdict()])
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE verdicts SET status = 'maybe'"))
    with pytest.raises(StoreError, match="verdicts row 1 is not a valid verdict"):
        store.verdicts("goal_completion")


def test_verdict_field_names_are_columns() -> None:
    columns = {c.name for c in schema.verdicts.columns} - {"id", "batch_id", "score_value", "day"}
    # What a verdicts file is resumed by (where the judge was asked, and a digest of what it
    # judged) stays in the file: the store keys a verdict by its batch of runs instead.
    file_only = {"endpoint", "input_digest"}
    assert columns == set(Verdict.model_fields) - file_only


def test_an_unscored_verdict_never_replaces_a_scored_one(store: Store) -> None:
    scored = make_verdict()
    unscored = make_verdict(
        status="unscored", score=None, unscored_reason="not JSON after one retry: 'hmm'"
    )
    store.record_verdicts([scored])
    store.record_verdicts([unscored])
    assert store.verdicts("goal_completion") == [scored]
    # A later scored verdict still replaces, and a scored one replaces an unscored one.
    failing = make_verdict(score="fail", reason="no refund was issued")
    store.record_verdicts([failing])
    assert store.verdicts("goal_completion") == [failing]
    other = make_verdict("shop/refund_full/4", status="unscored", score=None)
    store.record_verdicts([other])
    store.record_verdicts([make_verdict("shop/refund_full/4")])
    assert [v.status for v in store.verdicts("goal_completion")] == ["scored", "scored"]


def test_confidence_and_abstention_round_trip(store: Store) -> None:
    kept = make_verdict(confidence=0.875)
    abstained = make_verdict("shop/refund_full/4", status="abstained", score="fail", confidence=0.5)
    unknown = make_verdict("shop/refund_full/5", confidence=None)
    store.record_verdicts([kept, abstained, unknown])
    assert store.verdicts("goal_completion") == [kept, abstained, unknown]
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(schema.verdicts.c.run_id, schema.verdicts.c.score_value).order_by(
                schema.verdicts.c.run_id
            )
        ).all()
    # An abstained verdict keeps its score but no value to sum: it is neither pass nor fail.
    assert [tuple(row) for row in rows] == [
        ("shop/refund_full/3", 1.0),
        ("shop/refund_full/4", None),
        ("shop/refund_full/5", 1.0),
    ]


def test_an_abstained_verdict_replaces_a_scored_one(store: Store) -> None:
    store.record_verdicts([make_verdict(confidence=0.9)])
    abstained = make_verdict(status="abstained", confidence=0.4)
    store.record_verdicts([abstained])
    assert store.verdicts("goal_completion") == [abstained]
    store.record_verdicts([make_verdict(status="unscored", score=None)])
    assert store.verdicts("goal_completion") == [abstained]  # unscored replaces neither
