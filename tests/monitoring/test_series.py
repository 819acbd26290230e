"""Series from a real store: the sums and counts per window, the rubric scopes, the roles."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from judgekit.formats.grade import Grade, GraderResult
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.monitoring.monitor import build_monitor_report
from judgekit.monitoring.series import RubricScope, grade_series, rubric_series
from judgekit.stats.proportions import wilson_interval
from judgekit.store import Store
from tests.conftest import REPO
from tests.promoted import balanced, promote_for_real

DAY = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)


def grade(i: int, passed: bool, *, truth: bool | None = None, cost: float | None = None) -> Grade:
    return Grade(
        run_id=f"shop/t/{i}",
        task_id="t",
        passed=passed,
        truth=None if truth is None else GraderResult(passed=truth, reason="r"),
        turns=i % 5,
        cost_usd=cost,
    )


def verdict(
    i: int, score: object, *, at: datetime, version: str = "v1", model: str = "m/a"
) -> Verdict:
    return Verdict(
        run_id=f"shop/t/{i}",
        rubric_id="goal_completion",
        rubric_version=version,
        model=model,
        status="scored" if score is not None else "unscored",
        score=score,
        at=at,
    )


def test_grades_make_one_point_per_day_with_exact_counts_and_intervals(store: Store) -> None:
    first = store.batch(key="runs:day1")
    second = store.batch(key="runs:day2")
    store.record_grades([grade(i, i < 7, truth=i < 8, cost=0.01) for i in range(10)], first, at=DAY)
    later = DAY + timedelta(days=2)
    store.record_grades([grade(i, i < 3, cost=0.02 + i / 100) for i in range(4)], second, at=later)

    by_metric = {s.metric: s for s in grade_series(store, since=None, by="day")}
    passed = by_metric["pass_rate"].points
    assert [(p.label, p.n, p.successes) for p in passed] == [
        ("2026-11-20", 10, 7),
        ("2026-11-22", 4, 3),
    ]
    assert passed[0].at == datetime(2026, 11, 20, tzinfo=UTC)
    assert (passed[0].low, passed[0].high) == wilson_interval(7, 10)
    # Truth was checked on the first day only: one point, not a zero on the second.
    assert [(p.n, p.successes) for p in by_metric["truth"].points] == [(10, 8)]
    assert by_metric["state"].points == []
    cost = by_metric["cost_usd"].points
    assert [p.n for p in cost] == [10, 4]
    assert cost[1].value == pytest.approx(0.035)
    assert cost[1].sd == pytest.approx(0.0129099, rel=1e-5)  # sd of 0.02, 0.03, 0.04, 0.05
    assert cost[0].sd == pytest.approx(0.0, abs=1e-9)  # sums of squares round a little

    by_batch = {s.metric: s for s in grade_series(store, since=None, by="batch")}
    assert [(p.label, p.n) for p in by_batch["pass_rate"].points] == [
        (f"batch {first}", 10),
        (f"batch {second}", 4),
    ]
    recent = grade_series(store, since=DAY + timedelta(days=1), by="day")
    assert [(p.label, p.n) for p in recent[0].points] == [("2026-11-22", 4)]


def test_a_rubric_series_counts_only_its_version_and_model(store: Store) -> None:
    at = DAY
    store.record_verdicts(
        [verdict(i, "pass" if i < 6 else "fail", at=at) for i in range(8)]
        + [verdict(100 + i, "fail", at=at, version="v0") for i in range(5)]
        + [verdict(200 + i, "fail", at=at, model="m/b") for i in range(5)]
        + [verdict(300, None, at=at)]
    )
    scope = RubricScope("goal_completion", "goal", "proportion", "gating", "v1", "m/a")
    [point] = rubric_series(store, scope, since=None, by="day").points
    assert (point.n, point.successes) == (8, 6)  # unscored left out
    everything = RubricScope("goal_completion", "goal", "proportion", "informational")
    [point] = rubric_series(store, everything, since=None, by="day").points
    assert (point.n, point.successes) == (18, 6)


def test_a_likert_rubric_is_a_mean(store: Store) -> None:
    store.record_verdicts([verdict(i, score, at=DAY) for i, score in enumerate([5, 4, 4, 1])])
    scope = RubricScope("goal_completion", "quality", "mean", "gating", "v1", "m/a")
    [point] = rubric_series(store, scope, since=None, by="day").points
    assert (point.n, point.value) == (4, 3.5)
    assert point.sd == pytest.approx(1.7320508)


def _promoted_rubrics(tmp_path: Path) -> Path:
    folder = tmp_path / "rubrics"
    folder.mkdir()
    shutil.copy(REPO / "rubrics" / "goal_completion.yaml", folder)
    shutil.copy(REPO / "rubrics" / "answer_quality.yaml", folder)
    promote_for_real(folder / "goal_completion.yaml", balanced())
    return folder


def test_promoted_rubrics_gate_drafts_and_unknown_rubrics_only_inform(
    store: Store, tmp_path: Path
) -> None:
    folder = _promoted_rubrics(tmp_path)
    goal = load_rubric(folder / "goal_completion.yaml")
    quality = load_rubric(folder / "answer_quality.yaml")
    version = rubric_version(goal)
    days = [DAY + timedelta(days=d) for d in range(8)]
    rows: list[Verdict] = []
    for d, at in enumerate(days):
        for i in range(100):
            good = i < (80 if d < 7 else 60)
            rows.append(
                verdict(
                    1000 * d + i,
                    "pass" if good else "fail",
                    at=at,
                    version=version,
                    model="openai/gpt-4o-mini",
                )
            )
    store.record_verdicts(rows)
    store.record_verdicts(
        [
            Verdict(
                run_id=r.run_id,
                rubric_id="tone",
                rubric_version="x",
                model="m/a",
                status="scored",
                score="fail" if i % 2 else "pass",
                at=r.at,
            )
            for i, r in enumerate(rows)
        ]
    )
    report = build_monitor_report(store, rubrics=[goal, quality], rubrics_dir=folder)
    by_metric = {s.metric: s for s in report.series}
    assert by_metric["rubric:goal_completion"].role == "gating"
    assert by_metric["rubric:goal_completion"].alert is not None
    assert by_metric["rubric:tone"].role == "informational"
    assert by_metric["rubric:tone"].note == (
        "informational: no rubric file given, so its status is unknown"
    )
    assert by_metric["rubric:answer_quality"].role == "informational"
    assert by_metric["rubric:answer_quality"].points == []
    assert [(line.id, line.status) for line in report.rubrics] == [
        ("goal_completion", "promoted"),
        ("answer_quality", "draft"),
        ("tone", "unknown"),
    ]
    assert [alert.metric for alert in report.alerts] == ["rubric:goal_completion"]


def test_an_alert_names_the_tasks_that_fell_most(store: Store) -> None:
    # Eight days of 100 runs per task; on the last, refund falls from 80% to 40% and
    # notify from 90% to 80%; cancel holds.
    plan = {"refund": (80, 40), "notify": (90, 80), "cancel": (70, 72)}
    for day in range(8):
        batch = store.batch(key=f"runs:day{day}")
        grades = []
        for task_id, (before, last) in plan.items():
            passed = last if day == 7 else before
            grades += [
                Grade(run_id=f"shop/{task_id}/{i}", task_id=task_id, passed=i < passed)
                for i in range(100)
            ]
        store.record_grades(grades, batch, at=DAY + timedelta(days=day))
    report = build_monitor_report(store)
    [alert] = report.alerts
    assert alert.metric == "pass_rate"
    assert [
        (d.task_id, d.baseline_n, d.baseline_successes, d.latest_n, d.latest_successes)
        for d in alert.tasks
    ] == [("refund", 700, 560, 100, 40), ("notify", 700, 630, 100, 80)]
    assert alert.message.endswith(
        "; fell most: refund 0.80 → 0.40 (40/100), notify 0.90 → 0.80 (80/100)"
    )
    batch_report = build_monitor_report(store, by="batch")
    [alert] = batch_report.alerts
    assert [d.task_id for d in alert.tasks] == ["refund", "notify"]


def test_answer_is_a_series_only_once_some_grade_has_an_answer_result(store: Store) -> None:
    def answered(i: int, task_id: str, told: bool | None) -> Grade:
        result = None if told is None else GraderResult(passed=told, reason="r")
        return Grade(run_id=f"shop/{task_id}/{i}", task_id=task_id, passed=True, answer=result)

    store.record_grades([answered(i, "refund", None) for i in range(5)], store.batch(key="b0"))
    assert "answer" not in {s.metric for s in build_monitor_report(store).series}
    # Seven days where refund's answer is right 90 times in 100, then a day with 50.
    for day in range(8):
        told = 50 if day == 7 else 90
        grades = [answered(i, "refund", i < told) for i in range(100)]
        grades += [answered(i, "cancel", None) for i in range(100)]
        store.record_grades(grades, store.batch(key=f"day{day}"), at=DAY + timedelta(days=day))

    report = build_monitor_report(store)
    answer = {s.metric: s for s in report.series}["answer"]
    assert answer.title == "Answer (told the user what was expected)"
    assert [(p.n, p.successes) for p in answer.points] == [(100, 90)] * 7 + [(100, 50)]
    [alert] = report.alerts
    assert alert.metric == "answer"
    assert [
        (d.task_id, d.baseline_n, d.baseline_successes, d.latest_successes) for d in alert.tasks
    ] == [("refund", 700, 630, 50)]
