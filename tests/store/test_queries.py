"""The store's aggregate reads (judgekit.store.queries), on both backends: exact sums, counts
and order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from judgekit.store import Store
from judgekit.store.queries import (
    WindowSums,
    grade_sums,
    latest_batch,
    latest_calibrations,
    scored_verdict_sums,
    stored_rubric_ids,
    task_successes,
    verdict_identities_elsewhere,
    verdict_score_sums,
)
from tests.store.factories import make_grade, make_verdict

DAY = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
LATER = DAY + timedelta(days=2)


def _two_days_of_grades(store: Store) -> tuple[int, int]:
    first = store.batch(key="runs:first")
    second = store.batch(key="runs:second")
    store.record_grades(
        [
            make_grade("a/1", task_id="a", passed=True, cost_usd=0.5, turns=2),
            make_grade("a/2", task_id="a", passed=True, cost_usd=1.5, turns=4, truth=None),
            make_grade("b/1", task_id="b", passed=False, cost_usd=None, turns=6),
        ],
        first,
        at=DAY,
    )
    store.record_grades(
        [make_grade("a/1", task_id="a", passed=False, truth=None, cost_usd=2.0, turns=4)],
        second,
        at=LATER,
    )
    return first, second


def test_grade_sums_per_day(store: Store) -> None:
    _two_days_of_grades(store)
    sums = grade_sums(
        store, proportions=["passed", "truth_passed"], means=["cost_usd"], since=None, by="day"
    )
    assert sums == [
        WindowSums("2026-11-20", datetime(2026, 11, 20, tzinfo=UTC), (3, 2, 2, 0, 2, 2.0, 2.5)),
        WindowSums("2026-11-22", datetime(2026, 11, 22, tzinfo=UTC), (1, 0, 0, None, 1, 2.0, 4.0)),
    ]
    recent = grade_sums(store, proportions=["passed"], means=[], since=LATER, by="day")
    assert recent == [WindowSums("2026-11-22", datetime(2026, 11, 22, tzinfo=UTC), (1, 0))]


def test_grade_sums_per_batch_start_when_the_batch_was_created(store: Store) -> None:
    first, second = _two_days_of_grades(store)
    created = {batch.id: batch.created_at for batch in store.batches()}
    sums = grade_sums(store, proportions=["passed"], means=["turns"], since=None, by="batch")
    assert sums == [
        WindowSums(f"batch {first}", created[first], (3, 2, 3, 12.0, 56.0)),
        WindowSums(f"batch {second}", created[second], (1, 0, 1, 4.0, 16.0)),
    ]
    assert grade_sums(store, proportions=["passed"], means=[], since=LATER, by="batch") == [
        WindowSums(f"batch {second}", created[second], (1, 0))
    ]


def test_task_successes_per_task_and_window(store: Store) -> None:
    first, second = _two_days_of_grades(store)
    by_day = task_successes(store, "passed", windows=["2026-11-20", "2026-11-22"], by="day")
    assert sorted(by_day) == [
        ("a", "2026-11-20", 2, 2),
        ("a", "2026-11-22", 1, 0),
        ("b", "2026-11-20", 1, 0),
    ]
    by_batch = task_successes(store, "truth_passed", windows=[first, second], by="batch")
    assert sorted(by_batch) == [("a", first, 1, 0), ("a", second, 0, 0), ("b", first, 1, 0)]
    assert task_successes(store, "passed", windows=[second], by="batch") == [("a", second, 1, 0)]


def _verdicts(store: Store) -> tuple[int, int]:
    first = store.batch(key="runs:first")
    second = store.batch(key="runs:second")
    store.record_verdicts(
        [
            make_verdict("r/1", rubric_version="v1", model="m/a", score="pass", at=DAY),
            make_verdict("r/2", rubric_version="v1", model="m/a", score="fail", at=DAY),
            make_verdict("r/3", rubric_version="v1", model="m/a", score=4, at=DAY),
            make_verdict(
                "r/4", rubric_version="v1", model="m/a", status="unscored", score=None, at=DAY
            ),
            make_verdict("r/1", rubric_version="v2", model="m/a", score="pass", at=DAY),
            make_verdict("r/1", rubric_version="v1", model="m/b", score="fail", at=DAY),
        ],
        first,
    )
    store.record_verdicts(
        [
            make_verdict("r/1", rubric_version="v1", model="m/a", score="fail", at=LATER),
            make_verdict("r/9", rubric_id="answer_ok", score="pass", at=LATER),
        ],
        second,
    )
    return first, second


def test_verdict_score_sums_of_one_version_and_model_or_all(store: Store) -> None:
    _verdicts(store)
    scoped = verdict_score_sums(
        store, "goal_completion", rubric_version="v1", model="m/a", since=None, by="day"
    )
    assert scoped == [
        WindowSums("2026-11-20", datetime(2026, 11, 20, tzinfo=UTC), (3, 5.0, 17.0)),
        WindowSums("2026-11-22", datetime(2026, 11, 22, tzinfo=UTC), (1, 0.0, 0.0)),
    ]
    everything = verdict_score_sums(
        store, "goal_completion", rubric_version=None, model=None, since=DAY, by="day"
    )
    assert [(w.label, w.values) for w in everything] == [
        ("2026-11-20", (5, 6.0, 18.0)),
        ("2026-11-22", (1, 0.0, 0.0)),
    ]


def test_scored_verdict_sums_of_one_batch(store: Store) -> None:
    first, second = _verdicts(store)
    assert scored_verdict_sums(store, first, "goal_completion", "v1", "m/a") == (3, 5.0)
    assert scored_verdict_sums(store, second, "goal_completion", "v1", "m/a") == (1, 0.0)
    assert scored_verdict_sums(store, second, "goal_completion", "v2", "m/a") == (0, 0.0)


def test_stored_rubric_ids_sorted_and_since_a_day(store: Store) -> None:
    _verdicts(store)
    assert stored_rubric_ids(store, since=None) == ["answer_ok", "goal_completion"]
    assert stored_rubric_ids(store, since=LATER - timedelta(hours=1)) == [
        "answer_ok",
        "goal_completion",
    ]
    assert stored_rubric_ids(store, since=LATER + timedelta(days=1)) == []


def test_verdict_identities_elsewhere_leave_out_the_batch_asked_about(store: Store) -> None:
    first, second = _verdicts(store)
    elsewhere = verdict_identities_elsewhere(store, ["r/1", "r/9", "r/1"], second)
    assert elsewhere == {
        ("r/1", "goal_completion", "v1", "m/a", DAY),
        ("r/1", "goal_completion", "v2", "m/a", DAY),
        ("r/1", "goal_completion", "v1", "m/b", DAY),
    }
    assert verdict_identities_elsewhere(store, ["r/9"], first) == {
        ("r/9", "answer_ok", "3f2a9c", "openai/gpt-4o-mini", LATER)
    }
    assert verdict_identities_elsewhere(store, [], first) == set()


def test_latest_calibrations_in_the_order_asked(store: Store) -> None:
    older = {"rubric_id": "goal", "rubric_version": "v1", "model": "m/a", "n": 40, "kappa": 0.5}
    newer = older | {"n": 60, "kappa": 0.75}
    other = {"rubric_id": "tone", "rubric_version": "v3", "model": "m/b", "n": 10}
    store.record_calibration(newer, at=LATER)
    store.record_calibration(older, at=DAY)
    store.record_calibration(other, at=DAY)
    assert latest_calibrations(store, ["tone", "missing", "goal"]) == [other, newer]
    assert latest_calibrations(store, []) == []


def test_latest_batch_is_the_newest(store: Store) -> None:
    assert latest_batch(store) is None
    store.batch(key="runs:first")
    second = store.batch(key="runs:second", branch="main")
    newest = latest_batch(store)
    assert newest is not None
    assert (newest.id, newest.batch_key, newest.branch) == (second, "runs:second", "main")
