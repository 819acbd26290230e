"""A recheck's verdicts, in their batch of source ``recheck``, are left out of every
aggregate the monitor, the report and the gate read — from the daily totals and from the
verdicts themselves (a ``--suite`` filter) alike — on both backends; they stay readable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from judgekit.store import Store
from judgekit.store.queries import (
    WindowSums,
    matching_counts,
    scored_verdict_sums,
    stored_rubric_ids,
    verdict_coverage_counts,
    verdict_score_sums,
)
from judgekit.store.run_filter import EVERYTHING, RECHECK_SOURCE, RunFilter
from tests.store.factories import make_run, make_verdict

DAY = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
SCOPES = [EVERYTHING, RunFilter(suite="shop")]  # the daily totals, then the verdicts


def _production_and_a_recheck(store: Store) -> tuple[int, int]:
    """Production: 3 verdicts (2 pass) on DAY in one batch. A recheck the same day: 4 fails
    and a verdict of a rubric only the recheck judged."""
    production = store.batch(key="runs:production", source="judge")
    recheck = store.batch(key="recheck:goal_completion:2026-11-20", source=RECHECK_SOURCE)
    runs = [make_run(f"shop/refund_full/{i}") for i in range(4)]
    store.record_runs(runs, production)
    scores = ["pass", "pass", "fail"]
    store.record_verdicts(
        [
            make_verdict(f"shop/refund_full/{i}", score=s, at=DAY + timedelta(minutes=i))
            for i, s in enumerate(scores)
        ],
        production,
    )
    store.record_verdicts(
        [
            *(
                make_verdict(f"shop/refund_full/{i}", score="fail", at=DAY + timedelta(hours=1))
                for i in range(4)
            ),
            make_verdict("shop/refund_full/0", rubric_id="tone", at=DAY + timedelta(hours=1)),
        ],
        recheck,
    )
    return production, recheck


@pytest.mark.parametrize("only", SCOPES, ids=["totals", "suite"])
def test_the_series_per_day_and_per_batch_hold_production_alone(
    store: Store, only: RunFilter
) -> None:
    production, _ = _production_and_a_recheck(store)
    midnight = datetime(2026, 11, 20, tzinfo=UTC)
    scope = {"rubric_version": "3f2a9c", "model": "openai/gpt-4o-mini", "only": only}
    by_day = verdict_score_sums(store, "goal_completion", since=None, by="day", **scope)
    assert by_day == [WindowSums("2026-11-20", midnight, (3, 2.0, 2.0))]
    for since in (None, DAY):
        by_batch = verdict_score_sums(store, "goal_completion", since=since, by="batch", **scope)
        assert [(w.label, w.values) for w in by_batch] == [(f"batch {production}", (3, 2.0, 2.0))]
    coverage = verdict_coverage_counts(store, "goal_completion", since=None, by="day", **scope)
    assert coverage == [WindowSums("2026-11-20", midnight, (3, 3))]
    assert stored_rubric_ids(store, since=None, only=only) == ["goal_completion"]


@pytest.mark.parametrize("only", SCOPES, ids=["totals", "suite"])
def test_a_recheck_batch_holds_no_figures_for_the_gate(store: Store, only: RunFilter) -> None:
    production, recheck = _production_and_a_recheck(store)
    key = ("goal_completion", "3f2a9c", "openai/gpt-4o-mini")
    assert scored_verdict_sums(store, production, *key, only=only) == (3, 2.0)
    assert scored_verdict_sums(store, recheck, *key, only=only) == (0, 0.0)


def test_a_filter_matching_only_a_recheck_matches_nothing(store: Store) -> None:
    """The monitor's "matches nothing" check counts production's verdicts only."""
    _production_and_a_recheck(store)
    assert matching_counts(store, RunFilter(suite="shop")) == (0, 3)
    with store.engine.begin() as connection:
        connection.exec_driver_sql(
            "DELETE FROM verdicts WHERE batch_id IN (SELECT id FROM batches WHERE source = 'judge')"
        )
    assert matching_counts(store, RunFilter(suite="shop")) == (0, 0)


def test_the_recheck_s_verdicts_stay_readable(store: Store) -> None:
    _, recheck = _production_and_a_recheck(store)
    [batch] = store.batches(source=RECHECK_SOURCE)
    assert batch.id == recheck
    history = store.verdicts("goal_completion", history=True)
    assert [v.score for v in history] == ["pass", "pass", "fail", "fail", "fail", "fail", "fail"]
    assert [v.rubric_id for v in store.verdicts("tone")] == ["tone"]
