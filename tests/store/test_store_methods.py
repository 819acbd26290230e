"""The store's batches, runs, grades, calibrations and promotions, on both backends."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from datetime import UTC, timedelta
from typing import Any

import pytest
from sqlalchemy import make_url, select

from judgekit.errors import StoreError
from judgekit.formats.grade import GraderResult
from judgekit.formats.run import Run
from judgekit.store import Batch, Store, open_store, schema
from tests.store.conftest import missing_batch_error
from tests.store.factories import AT, make_grade, make_run, make_verdict


def _rows(store: Store, table_name: str) -> list[dict[str, Any]]:
    table = schema.metadata.tables[table_name]
    with store.engine.connect() as connection:
        return [
            dict(row) for row in connection.execute(select(table).order_by(table.c.id)).mappings()
        ]


# -- batches --------------------------------------------------------------------------------


def test_a_batch_key_finds_the_same_batch_and_keeps_the_first_details(store: Store) -> None:
    first = store.batch(
        key="runs:abc",
        source="grade",
        git_sha="1111",
        branch="main",
        agent_version="v2",
        tags={"ci": True, "shard": 1},
    )
    again = store.batch(
        key="runs:abc", source="judge", git_sha="2222", branch="other", tags={"ci": False}
    )
    assert again == first
    assert store.count("batches") == 1
    [batch] = store.batches()
    assert batch == Batch(
        id=first,
        created_at=batch.created_at,
        batch_key="runs:abc",
        source="grade",
        git_sha="1111",
        branch="main",
        agent_version="v2",
        tags={"ci": True, "shard": 1},
    )
    assert batch.created_at.tzinfo is UTC
    other = store.batch(key="runs:def")
    assert other != first
    assert store.count("batches") == 2


def test_a_batch_without_a_key_is_always_new(store: Store) -> None:
    ids = [store.batch(source="judge", branch="main") for _ in range(3)]
    assert len(set(ids)) == 3
    assert ids == sorted(ids)
    assert store.count("batches") == 3
    assert [(b.id, b.batch_key, b.source, b.branch) for b in store.batches()] == [
        (batch_id, None, "judge", "main") for batch_id in ids
    ]


def test_batches_filter_by_branch_and_source_oldest_first(store: Store) -> None:
    main_grade = store.batch(key="k1", branch="main", source="grade")
    dev_grade = store.batch(key="k2", branch="dev", source="grade")
    main_judge = store.batch(key="k3", branch="main", source="judge")
    assert [b.id for b in store.batches()] == [main_grade, dev_grade, main_judge]
    assert [b.id for b in store.batches(branch="main")] == [main_grade, main_judge]
    assert [b.id for b in store.batches(source="grade")] == [main_grade, dev_grade]
    assert [b.id for b in store.batches(branch="main", source="judge")] == [main_judge]
    assert store.batches(branch="missing") == []


# -- runs -----------------------------------------------------------------------------------


def test_runs_round_trip_exactly(store: Store) -> None:
    run = make_run()
    bare = make_run("shop/refund_full/4", tool_calls=[], trial=None, usage=None, metadata={})
    batch = store.batch(key="runs:1")
    assert store.record_runs([run, bare], batch) == 2
    back = store.runs()
    assert back == {run.run_id: run, bare.run_id: bare}
    assert back[run.run_id].model_dump() == run.model_dump()


def test_a_plain_answer_without_a_task_round_trips(store: Store) -> None:
    answer = Run(run_id="support/1", input="Do gift cards expire?", final_answer="Never.",
                 reference="Gift cards never expire.")  # fmt: skip
    batch = store.batch(key="runs:answers")
    assert store.record_runs([answer], batch) == 1
    assert store.runs() == {"support/1": answer}
    with store.engine.connect() as connection:
        row = connection.execute(select(schema.runs.c.task_id, schema.runs.c.data)).one()
    assert row.task_id == ""  # the column is required; the run's data holds no task_id
    assert row.data == {
        "run_id": "support/1",
        "input": "Do gift cards expire?",
        "tool_calls": [],
        "final_answer": "Never.",
        "reference": "Gift cards never expire.",
    }


def test_recording_runs_again_in_a_batch_keeps_one_row_each(store: Store) -> None:
    runs = [make_run(f"shop/refund_full/{i}", trial=i) for i in range(3)]
    batch = store.batch(key="runs:1")
    assert store.record_runs(runs, batch) == 3
    assert store.record_runs(runs, batch) == 3
    assert store.count("runs") == 3
    # The same run twice in one call is one row too, the later one kept.
    changed = runs[0].model_copy(update={"final_answer": "changed"})
    assert store.record_runs([runs[0], changed], batch) == 1
    assert store.count("runs") == 3
    assert store.runs()[runs[0].run_id] == changed


def test_runs_read_the_latest_recording_of_each_run_id(store: Store) -> None:
    monday, tuesday = store.batch(key="runs:monday"), store.batch(key="runs:tuesday")
    first = make_run("shop/a/0", final_answer="first")
    second = make_run("shop/a/0", final_answer="second", turns=9)
    other = make_run("shop/b/0")
    store.record_runs([first, other], monday)
    store.record_runs([second], tuesday)
    assert store.count("runs") == 3
    assert store.runs() == {"shop/a/0": second, "shop/b/0": other}
    # Recorded again in Monday's batch, the first version is now the latest.
    store.record_runs([first], monday)
    assert store.count("runs") == 3
    assert store.runs() == {"shop/a/0": first, "shop/b/0": other}
    assert store.runs(["shop/b/0"]) == {"shop/b/0": other}
    assert store.runs(["missing"]) == {}
    assert store.runs([]) == {}


def test_runs_can_be_asked_for_by_70000_ids(store: Store) -> None:
    # More ids than PostgreSQL takes parameters in one statement (65,535).
    wanted = [f"shop/t/{i:05d}" for i in range(70_000)]
    first, last = store.batch(key="runs:1"), store.batch(key="runs:2")
    picked = [wanted[0], wanted[35_000], wanted[-1]]
    store.record_runs([make_run(run_id, final_answer="old") for run_id in picked], first)
    newer = {run_id: make_run(run_id, final_answer="new") for run_id in picked[1:]}
    store.record_runs(newer.values(), last)
    store.record_runs([make_run("shop/other/0")], last)
    assert (
        store.runs(reversed(wanted)) == {picked[0]: make_run(picked[0], final_answer="old")} | newer
    )


def test_a_run_row_holds_its_summary_columns(store: Store) -> None:
    batch = store.batch(key="runs:1")
    store.record_runs([make_run()], batch)
    [row] = _rows(store, "runs")
    assert {k: row[k] for k in row if k not in ("id", "at", "data")} == {
        "batch_id": batch,
        "run_id": "shop/refund_full/3",
        "task_id": "shop/refund_full",
        "trial": 3,
        "stop_reason": "completed",
        "turns": 4,
        "cost_usd": 0.000219,
        "input_tokens": 1200,
        "output_tokens": 80,
        "duration_s": 4.5,
        "shard": None,  # recorded whole
    }
    assert row["at"].tzinfo is UTC
    store.record_runs([make_run()], batch, shard="2/4")
    assert [row["shard"] for row in _rows(store, "runs")] == ["2/4"]
    assert store.run_shards(batch) == {"shop/refund_full/3": "2/4"}


def test_a_run_in_a_batch_that_does_not_exist_is_refused(store: Store) -> None:
    with pytest.raises(StoreError) as caught:
        store.record_runs([make_run()], 999)
    assert re.fullmatch(missing_batch_error(store, "runs", 999), str(caught.value))
    assert store.count("runs") == 0


# -- grades ---------------------------------------------------------------------------------


def test_grades_round_trip_in_the_order_recorded(store: Store) -> None:
    batch = store.batch(key="runs:1")
    grades = [
        make_grade("shop/refund_full/3"),
        make_grade(
            "shop/refund_full/1",
            trial=1,
            passed=True,
            truth=GraderResult(passed=True, reason="all expected calls made"),
            state=GraderResult(passed=True, reason="order 1234 refunded"),
            claimed_success=None,
            violations=[],
            stop_reason=None,
            tool_errors=0,
        ),
        make_grade("shop/refund_full/2", truth=None, path=None, turns=None, cost_usd=None),
    ]
    assert store.record_grades(grades, batch) == 3
    back = store.grades(batch)
    assert back == grades
    assert [g.model_dump() for g in back] == [g.model_dump() for g in grades]
    assert store.grades(store.batch(key="runs:2")) == []


def test_recording_grades_again_keeps_one_row_per_run(store: Store) -> None:
    batch, other = store.batch(key="runs:1"), store.batch(key="runs:2")
    grades = [make_grade(f"shop/refund_full/{i}", trial=i) for i in range(3)]
    store.record_grades(grades, batch)
    assert store.record_grades(grades, batch) == 3
    assert store.count("grades") == 3
    regraded = grades[1].model_copy(update={"passed": True, "truth": None})
    assert store.record_grades([regraded], batch) == 1
    assert store.count("grades") == 3
    # Replaced in place: the order recorded first stays.
    assert store.grades(batch) == [grades[0], regraded, grades[2]]
    # The same run in another batch is another grade.
    store.record_grades([grades[0]], other)
    assert store.count("grades") == 4
    assert store.grades(other) == [grades[0]]


def test_a_grade_row_holds_its_summary_columns_and_time(store: Store) -> None:
    batch = store.batch(key="runs:1")
    store.record_grades([make_grade()], batch, at=AT)
    [row] = _rows(store, "grades")
    assert {k: row[k] for k in row if k not in ("id", "data")} == {
        "batch_id": batch,
        "run_id": "shop/refund_full/3",
        "task_id": "shop/refund_full",
        "trial": 3,
        "passed": False,
        "truth_passed": False,
        "path_passed": True,
        "state_passed": None,
        "claimed_success": True,
        "turns": 4,
        "cost_usd": 0.000219,
        "stop_reason": "max_turns",
        "tool_calls": 3,
        "tool_errors": 1,
        "at": AT,
        "day": "2026-11-29",
        "answer_passed": None,
    }


def test_a_grade_row_holds_its_answer_result(store: Store) -> None:
    batch = store.batch(key="runs:1")
    answered = GraderResult(passed=False, reason="answer: missing '$40.00'")
    store.record_grades([make_grade(), make_grade("shop/refund_full/4", answer=answered)], batch)
    rows = _rows(store, "grades")
    assert [(row["run_id"], row["answer_passed"]) for row in rows] == [
        ("shop/refund_full/3", None),
        ("shop/refund_full/4", False),
    ]
    assert store.grades(batch)[1].answer == answered


# -- calibrations and promotions ------------------------------------------------------------

REPORT: dict[str, Any] = {
    "rubric_id": "goal_completion",
    "rubric_version": "3f2a9c",
    "model": "openai/gpt-4o-mini",
    "n": 120,
    "agreement": 0.9,
    "kappa": 0.78,
    "kappa_ci": [0.66, 0.88],
    "promotable": True,
    "confusion": {"pass": {"pass": 60, "fail": 5}, "fail": {"pass": 7, "fail": 48}},
}


def test_the_same_calibration_recorded_twice_is_kept_once(store: Store) -> None:
    store.record_calibration(REPORT, at=AT)
    store.record_calibration(dict(reversed(REPORT.items())), at=AT + timedelta(days=1))
    assert store.count("calibrations") == 1
    [row] = _rows(store, "calibrations")
    digest = hashlib.sha256(json.dumps(REPORT, sort_keys=True).encode()).hexdigest()
    assert {k: row[k] for k in row if k != "id"} == {
        "rubric_id": "goal_completion",
        "rubric_version": "3f2a9c",
        "model": "openai/gpt-4o-mini",
        "at": AT,
        "n": 120,
        "agreement": 0.9,
        "kappa": 0.78,
        "kappa_low": 0.66,
        "kappa_high": 0.88,
        "promotable": True,
        "digest": digest,
        "data": REPORT,
    }
    # A different report is another row.
    store.record_calibration(REPORT | {"kappa": 0.5, "promotable": False})
    assert store.count("calibrations") == 2


def test_a_calibration_without_a_model_or_interval_is_recorded(store: Store) -> None:
    store.record_calibration({"rubric_id": "tone", "rubric_version": "1"}, at=AT)
    [row] = _rows(store, "calibrations")
    assert (row["model"], row["n"], row["kappa"], row["kappa_low"], row["kappa_high"]) == (
        "",
        0,
        None,
        None,
        None,
    )
    assert row["promotable"] is False


def test_promotions_are_recorded_once_per_event(store: Store) -> None:
    record = {
        "rubric_id": "goal_completion",
        "rubric_version": "3f2a9c",
        "model": "openai/gpt-4o-mini",
        "kappa": 0.78,
        "promoted_at": AT,
    }
    store.record_promotion(record, at=AT)
    store.record_promotion(record, at=AT)
    assert store.count("promotions") == 1
    later = AT + timedelta(days=7)
    store.record_promotion(record, status="stale", reason="kappa fell to 0.41", at=later)
    assert store.count("promotions") == 2
    rows = [{k: row[k] for k in row if k != "id"} for row in _rows(store, "promotions")]
    common = {
        "rubric_id": "goal_completion",
        "rubric_version": "3f2a9c",
        "model": "openai/gpt-4o-mini",
        "kappa": 0.78,
        # Not JSON itself, the time is kept as its text.
        "data": record | {"promoted_at": str(AT)},
    }
    assert rows == [
        common | {"at": AT, "status": "promoted", "reason": None},
        common | {"at": later, "status": "stale", "reason": "kappa fell to 0.41"},
    ]


# -- finding a batch with grades ------------------------------------------------------------


@pytest.fixture
def graded(store: Store) -> dict[str, int]:
    """Batches of two branches, oldest first; ``main_newest`` holds no grades."""
    ids: dict[str, int] = {}
    for name, branch, with_grades in [
        ("main_old", "main", True),
        ("main_new", "main", True),
        ("dev", "dev", True),
        ("main_newest", "main", False),
    ]:
        ids[name] = store.batch(key=f"runs:{name}", branch=branch, source="grade")
        if with_grades:
            store.record_grades([make_grade(f"shop/{name}/0")], ids[name])
        else:
            store.record_verdicts([make_verdict(f"shop/{name}/0")], batch_id=ids[name])
    return ids


def test_latest_branch_is_the_newest_batch_of_that_branch_with_grades(
    store: Store, graded: dict[str, int]
) -> None:
    by_id = {b.id: b for b in store.batches()}
    assert store.batch_with_grades("latest:main") == by_id[graded["main_new"]]
    assert store.batch_with_grades("latest:dev") == by_id[graded["dev"]]
    assert store.batch_with_grades(f"batch:{graded['main_old']}") == by_id[graded["main_old"]]


@pytest.mark.parametrize("reference", ["batch:999", "latest:release", "batch:{main_newest}"])
def test_a_reference_nothing_matches_is_a_store_error(
    store: Store, graded: dict[str, int], reference: str
) -> None:
    reference = reference.format(**graded)
    with pytest.raises(StoreError) as caught:
        store.batch_with_grades(reference)
    assert str(caught.value) == f"{store.url}: no batch with grades matches {reference}"


@pytest.mark.parametrize(
    "reference", ["main", "", "batch:", "batch:abc", "batch:-1", "latest:", "newest:main"]
)
def test_a_malformed_reference_is_a_store_error(store: Store, reference: str) -> None:
    with pytest.raises(StoreError) as caught:
        store.batch_with_grades(reference)
    assert str(caught.value) == (
        f"{reference!r} is not a store reference; expected batch:ID or latest:BRANCH "
        "(e.g. latest:main)"
    )


# -- no password in messages ----------------------------------------------------------------


@pytest.fixture
def password(postgres_url: str) -> str:
    secret = make_url(postgres_url).password
    if not secret:
        pytest.skip("the PostgreSQL URL in JUDGEKIT_TEST_POSTGRES_URL has no password to hide")
    return str(secret)


def _message(action: Any) -> str:
    with pytest.raises(StoreError) as caught:
        action()
    return str(caught.value)


def test_no_store_error_shows_the_postgresql_password(postgres_url: str, password: str) -> None:
    url = make_url(postgres_url)
    masked = url.render_as_string(hide_password=True)
    assert masked.count(":***@") == 1

    with open_store(postgres_url) as store:
        assert store.url == masked
        messages = [
            _message(lambda: store.batch_with_grades("batch:999")),
            _message(lambda: store.record_verdicts([make_verdict()], batch_id=999)),
            _message(lambda: store.record_grades([make_grade()], 999)),
        ]
    wrong = url.set(password="wrong-" + password)
    missing = url.set(database="judgekit_t_missing")
    messages += [
        _message(lambda: open_store(wrong.render_as_string(hide_password=False))),
        _message(lambda: open_store(missing.render_as_string(hide_password=False))),
    ]
    for message in messages:
        assert password not in message
    assert [m.split(": ", 1)[0] for m in messages] == [masked] * 3 + [
        wrong.render_as_string(hide_password=True),
        missing.render_as_string(hide_password=True),
    ]
    assert messages[3].endswith(f'password authentication failed for user "{url.username}"')
    assert messages[4].endswith('database "judgekit_t_missing" does not exist')


def test_a_store_error_from_a_run_row_never_shows_the_password(
    postgres_url: str, password: str
) -> None:
    with open_store(postgres_url) as store:
        batch = store.batch(key="runs:1")
        store.record_runs([make_run()], batch)
        with store.engine.begin() as connection:
            connection.exec_driver_sql("""UPDATE runs SET data = '{"run_id": 1}'::jsonb""")
        message = _message(store.runs)
    masked = make_url(postgres_url).render_as_string(hide_password=True)
    assert message == f"{masked}: runs row 1 is not a valid run: Input should be a valid string"
    assert password not in message


@pytest.fixture
def two_stores(store_url: str) -> Iterator[tuple[Store, Store]]:
    with open_store(store_url) as first, open_store(store_url) as second:
        yield first, second


def test_two_open_stores_on_one_database_see_each_others_writes(
    two_stores: tuple[Store, Store],
) -> None:
    first, second = two_stores
    batch = first.batch(key="runs:1", branch="main")
    assert second.batch(key="runs:1") == batch
    second.record_grades([make_grade()], batch)
    assert first.grades(batch) == [make_grade()]
    assert first.batch_with_grades(f"batch:{batch}") == second.batch_with_grades("latest:main")


def test_a_nul_character_in_agent_output_is_stored_on_every_backend(store: Store) -> None:
    """PostgreSQL refuses NUL in text and JSON; the store keeps the run, marking the byte."""
    run = Run(run_id="shop/t/nul", task_id="t", tool_calls=[], final_answer="done\x00 (ticket 7)")
    batch = store.batch(key="runs:nul")
    store.record_runs([run], batch)
    store.record_verdicts([make_verdict("shop/t/nul", reason="odd byte \x00 here")], batch)
    [back] = store.runs(["shop/t/nul"]).values()
    [verdict] = store.verdicts("goal_completion")
    if store.engine.dialect.name == "postgresql":
        assert back.final_answer == "done\ufffd (ticket 7)"
        assert verdict.reason == "odd byte \ufffd here"
    else:
        assert back.final_answer == "done\x00 (ticket 7)"
        assert verdict.reason == "odd byte \x00 here"
