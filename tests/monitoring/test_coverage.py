"""The monitor's coverage of a selective judge: the share of verdicts not abstained per
window, and an alert when it falls below the promoted coverage (one-sided exact binomial
test, checked against scipy)."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from scipy.stats import binom

from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.monitoring.monitor import build_monitor_report
from judgekit.store import Store
from tests.conftest import REPO
from tests.promoted import promote_for_real

DAY = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
MODEL = "openai/gpt-4o-mini"


def rubric_in(tmp_path: Path, *, selective: bool) -> Rubric:
    """goal_completion promoted on 200 test labels; ``selective``: at α = 0.1, δ = 0.1, its
    judge sure (0.95) and right on 180 of them, unsure (0.5) and wrong on 20, so the
    threshold keeps 0.95: coverage 0.9."""
    folder = tmp_path / "rubrics"
    folder.mkdir()
    path = folder / "goal_completion.yaml"
    shutil.copy(REPO / "rubrics" / "goal_completion.yaml", path)
    if selective:
        text = path.read_text()
        path.write_text(
            text.replace("promotion: {", "promotion: {selective: {alpha: 0.1, delta: 0.1}, ")
        )
    human = {f"shop/l/{i}": "pass" if i % 2 else "fail" for i in range(200)}
    flipped = {"pass": "fail", "fail": "pass"}
    judged = {r: flipped[h] if i < 20 else h for i, (r, h) in enumerate(human.items())}
    sure = {r: 0.5 if i < 20 else 0.95 for i, r in enumerate(human)}
    promote_for_real(path, human, judged, confidences=sure if selective else None)
    return load_rubric(path)


def record_days(store: Store, rubric: Rubric, abstained_per_day: list[int]) -> None:
    """100 verdicts a day, the first ``abstained`` of each day abstained."""
    rows = []
    for d, abstained in enumerate(abstained_per_day):
        for i in range(100):
            rows.append(
                Verdict(
                    run_id=f"shop/t/{1000 * d + i}",
                    rubric_id=rubric.id,
                    rubric_version=rubric_version(rubric),
                    model=MODEL,
                    status="abstained" if i < abstained else "scored",
                    score="pass",
                    confidence=0.5 if i < abstained else 0.95,
                    at=DAY + timedelta(days=d),
                )
            )
    store.record_verdicts(rows)


def test_coverage_below_the_promoted_one_alerts_with_an_exact_p(
    store: Store, tmp_path: Path
) -> None:
    rubric = rubric_in(tmp_path, selective=True)
    record_days(store, rubric, [8, 12, 30])
    report = build_monitor_report(store, rubrics=[rubric])
    coverage = {s.metric: s for s in report.series}["coverage:goal_completion"]
    assert (coverage.role, coverage.kind) == ("gating", "proportion")
    assert [(p.label, p.n, p.successes) for p in coverage.points] == [
        ("2026-11-20", 100, 92),
        ("2026-11-21", 100, 88),
        ("2026-11-22", 100, 70),
    ]
    assert coverage.baseline is not None
    assert (coverage.baseline.label, coverage.baseline.value, coverage.baseline.n) == (
        "promoted",
        0.9,
        200,
    )
    expected = float(binom.cdf(70, 100, 0.9))
    assert coverage.p_value == pytest.approx(expected, rel=1e-9)
    assert coverage.alert is not None
    assert coverage.alert.message == (
        "coverage 70.0% in 2026-11-22 (70 of 100 verdicts kept, 30 abstained), below the "
        "promoted 90.0%; one-sided exact binomial p < 0.0001, alpha 0.01"
    )
    assert coverage.note == "abstained in 2026-11-22: 30 of 100"
    assert "coverage:goal_completion" in [alert.metric for alert in report.alerts]


def test_coverage_within_chance_of_the_promoted_one_does_not_alert(
    store: Store, tmp_path: Path
) -> None:
    rubric = rubric_in(tmp_path, selective=True)
    record_days(store, rubric, [8, 12])
    coverage = {s.metric: s for s in build_monitor_report(store, rubrics=[rubric]).series}[
        "coverage:goal_completion"
    ]
    assert coverage.p_value == pytest.approx(float(binom.cdf(88, 100, 0.9)), rel=1e-9)
    assert coverage.alert is None


def test_without_a_selective_promotion_coverage_only_informs_once_abstained(
    store: Store, tmp_path: Path
) -> None:
    rubric = rubric_in(tmp_path, selective=False)
    record_days(store, rubric, [0, 0])
    metrics = [s.metric for s in build_monitor_report(store, rubrics=[rubric]).series]
    assert "coverage:goal_completion" not in metrics
    record_days(store, rubric, [0, 0, 5])
    coverage = {s.metric: s for s in build_monitor_report(store, rubrics=[rubric]).series}[
        "coverage:goal_completion"
    ]
    assert (coverage.role, coverage.alert, coverage.p_value) == ("informational", None, None)
    assert coverage.points[-1].successes == 95


def test_no_coverage_series_without_verdicts(store: Store, tmp_path: Path) -> None:
    rubric = rubric_in(tmp_path, selective=True)
    metrics = [s.metric for s in build_monitor_report(store, rubrics=[rubric]).series]
    assert "coverage:goal_completion" not in metrics
