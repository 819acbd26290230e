"""Filters by suite, branch, tag and agent version, applied in SQL, on both backends: exact
series and counts on a store holding two suites, two branches and tagged batches."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from judgekit.errors import StoreError
from judgekit.formats.run import Run
from judgekit.store import Store
from judgekit.store.queries import (
    grade_sums,
    matching_counts,
    stored_rubric_ids,
    task_successes,
    verdict_coverage_counts,
    verdict_score_sums,
)
from judgekit.store.run_filter import EVERYTHING, RunFilter, run_suite
from tests.store.factories import make_grade, make_verdict

DAY = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
NEXT = DAY + timedelta(days=1)

# run id, task id, passed — per batch
MAIN_RUNS = [
    ("shop/refund_full/1", "refund_full", True),
    ("shop/refund_full/2", "refund_full", False),
    ("travel/book/1", "book", True),
    # An underscore where "shop/" has a slash: LIKE's "_" would let it into suite "shop".
    ("shop_old/refund_full/1", "refund_full", False),
    # Not named SUITE/TASK/TRIAL: in no suite.
    ("loose-7", "loose", True),
]
PR_RUNS = [("shop/refund_full/1", "refund_full", False), ("travel/book/1", "book", False)]


def _record(store: Store, key: str, runs: list[tuple[str, str, bool]], at: datetime) -> int:
    branch = "main" if key == "main" else "pr-7"
    tags = {"model": "gpt-a", "env": "ci"} if key == "main" else {"model": "gpt-b", "env": "ci"}
    version = "1.0" if key == "main" else "1.1"
    batch = store.batch(key=f"runs:{key}", branch=branch, tags=tags, agent_version=version)
    store.record_runs(
        [Run(run_id=run_id, task_id=task, tool_calls=[]) for run_id, task, _ in runs], batch
    )
    grades = [make_grade(run_id, task_id=task, passed=ok) for run_id, task, ok in runs]
    store.record_grades(grades, batch, at=at)
    verdicts = [
        make_verdict(run_id, score="pass" if ok else "fail", at=at) for run_id, _, ok in runs
    ]
    store.record_verdicts(verdicts, batch)
    return batch


@pytest.fixture
def filled(store: Store) -> Store:
    _record(store, "main", MAIN_RUNS, DAY)
    _record(store, "pr", PR_RUNS, NEXT)
    return store


def _pass_rates(store: Store, only: RunFilter) -> list[tuple[str, int, int]]:
    rows = grade_sums(store, proportions=["passed"], means=[], since=None, by="day", only=only)
    return [(row.label, int(row.values[0]), int(row.values[1])) for row in rows]


def _scores(store: Store, only: RunFilter) -> list[tuple[str, int, float]]:
    rows = verdict_score_sums(
        store, "goal_completion", rubric_version=None, model=None, since=None, by="day", only=only
    )
    return [(row.label, int(row.values[0]), float(row.values[1])) for row in rows]


@pytest.mark.parametrize(
    ("only", "grades", "scores"),
    [
        (
            EVERYTHING,
            [("2026-11-20", 5, 3), ("2026-11-21", 2, 0)],
            [("2026-11-20", 5, 3.0), ("2026-11-21", 2, 0.0)],
        ),
        (
            RunFilter(suite="shop"),
            [("2026-11-20", 2, 1), ("2026-11-21", 1, 0)],
            [("2026-11-20", 2, 1.0), ("2026-11-21", 1, 0.0)],
        ),
        (RunFilter(suite="travel"), [("2026-11-20", 1, 1), ("2026-11-21", 1, 0)], None),
        (RunFilter(branch="main"), [("2026-11-20", 5, 3)], [("2026-11-20", 5, 3.0)]),
        (RunFilter(branch="pr-7", suite="travel"), [("2026-11-21", 1, 0)], None),
        (RunFilter(tags=(("model", "gpt-b"),)), [("2026-11-21", 2, 0)], None),
        (RunFilter(tags=(("env", "ci"), ("model", "gpt-a"))), [("2026-11-20", 5, 3)], None),
        (RunFilter(tags=(("env", "ci"), ("model", "gpt-c"))), [], []),
        (RunFilter(agent_version="1.1", suite="shop"), [("2026-11-21", 1, 0)], None),
        (RunFilter(suite="sho"), [], []),
    ],
)
def test_each_filter_narrows_the_series_in_sql(
    filled: Store,
    only: RunFilter,
    grades: list[tuple[str, int, int]],
    scores: list[tuple[str, int, float]] | None,
) -> None:
    assert _pass_rates(filled, only) == grades
    # A verdict is in its run's suite and has its batch's provenance: the same counts.
    expected = scores if scores is not None else [(d, n, float(s)) for d, n, s in grades]
    assert _scores(filled, only) == expected


def test_filters_reach_every_query(filled: Store) -> None:
    shop_main = RunFilter(suite="shop", branch="main")
    assert matching_counts(filled, shop_main) == (2, 2)
    assert matching_counts(filled, RunFilter(branch="nowhere")) == (0, 0)
    assert matching_counts(filled, EVERYTHING) == (7, 7)
    assert stored_rubric_ids(filled, since=None, only=shop_main) == ["goal_completion"]
    assert stored_rubric_ids(filled, since=None, only=RunFilter(suite="none")) == []
    successes = task_successes(
        filled, "passed", windows=["2026-11-20", "2026-11-21"], by="day", only=shop_main
    )
    assert successes == [("refund_full", "2026-11-20", 2, 1)]
    coverage = verdict_coverage_counts(
        filled,
        "goal_completion",
        rubric_version=None,
        model=None,
        since=None,
        by="batch",
        only=RunFilter(branch="pr-7"),
    )
    assert [(row.label, tuple(int(v) for v in row.values)) for row in coverage] == [
        ("batch 2", (2, 2))
    ]


def test_latest_of_a_branch_with_a_later_pull_request_batch(filled: Store) -> None:
    # The pull request's batch is newer; latest:main is still main's, and latest is the PR's.
    assert filled.batch_with_grades("latest:main").branch == "main"
    assert filled.batch_with_grades("latest").branch == "pr-7"
    shop = RunFilter(suite="shop")
    batch = filled.batch_with_grades("latest:main", only=shop)
    assert [g.run_id for g in filled.grades(batch.id, only=shop)] == [
        "shop/refund_full/1",
        "shop/refund_full/2",
    ]
    with pytest.raises(StoreError) as caught:
        filled.batch_with_grades(
            "latest:main", only=RunFilter(suite="travel", tags=(("model", "gpt-b"),))
        )
    assert str(caught.value) == (
        f"{filled.url}: no batch with grades matches latest:main --suite travel --tag model=gpt-b"
    )


def test_a_tag_key_with_quotes_and_dots_is_one_key(store: Store) -> None:
    batch = store.batch(key="runs:odd", tags={'a.b"c': "x"})
    store.record_grades([make_grade("s/t/1", task_id="t")], batch, at=DAY)
    assert matching_counts(store, RunFilter(tags=(('a.b"c', "x"),))) == (1, 0)
    assert matching_counts(store, RunFilter(tags=(("a", "x"),))) == (0, 0)


def test_run_suite() -> None:
    assert run_suite("shop/refund_full/1", "refund_full") == "shop"
    assert run_suite("shop/refund_full/1", "shop/refund_full") == "shop"
    assert run_suite("shop_old/refund_full/1", "refund_full") == "shop_old"
    assert run_suite("loose-7", "loose") is None
    assert run_suite("a/b/refund_full/1", "refund_full") is None
