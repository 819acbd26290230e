"""Drift alerts on simulated series: false alarms on stable ones, power on real drops."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from statsmodels.stats.proportion import proportions_ztest

from judgekit.monitoring.alerts import AlertPolicy, evaluate_alerts
from judgekit.monitoring.model import Point, Series
from judgekit.monitoring.points import mean_point, proportion_point

START = datetime(2026, 11, 1, tzinfo=UTC)
N = 500


def _day(i: int) -> tuple[str, datetime]:
    at = START + timedelta(days=i)
    return at.date().isoformat(), at


def pass_series(successes: list[int], n: int = N, metric: str = "pass_rate") -> Series:
    points = [proportion_point(*_day(i), n, s) for i, s in enumerate(successes)]
    return Series(metric, "pass rate", "proportion", "gating", points)


def simulated(rng: np.random.Generator, rates: list[float], n: int = N) -> Series:
    return pass_series([int(rng.binomial(n, r)) for r in rates], n)


def test_a_ten_point_drop_over_500_runs_alerts_with_the_figures() -> None:
    [series] = evaluate_alerts([pass_series([400] * 7 + [350])])
    assert series.alert is not None
    assert series.baseline is not None
    assert (series.baseline.n, series.baseline.successes) == (3500, 2800)
    # The same test in statsmodels: baseline rate larger than the latest's.
    _, reference = proportions_ztest([2800, 350], [3500, 500], alternative="larger")
    assert series.p_value == pytest.approx(reference, rel=1e-9)
    assert series.p_value == pytest.approx(1.585e-07, rel=1e-3)
    assert series.alert.message == (
        "pass rate dropped 0.800 → 0.700 (baseline 2026-11-01 … 2026-11-07 (7 windows): "
        "n = 3500; latest 2026-11-08: n = 500); one-sided p < 0.0001, alpha 0.01"
    )


def test_simulated_ten_point_drops_alert_every_time() -> None:
    rng = np.random.default_rng(20261129)
    caught = sum(
        evaluate_alerts([simulated(rng, [0.8] * 7 + [0.7])])[0].alert is not None
        for _ in range(200)
    )
    assert caught >= 198  # power measured at 99.6% over 1,000 series


def test_fifty_stable_windows_of_500_runs_raise_no_more_alarms_than_documented() -> None:
    # The documented rate is alpha = 1% per metric: 0.5 alarms expected in 50 windows.
    rng = np.random.default_rng(50)
    series = simulated(rng, [0.8] * 57)
    alarms = 0
    for end in range(8, 58):  # 50 windows, each against the 7 before it
        window = Series("pass_rate", "pass rate", "proportion", "gating", series.points[:end])
        alarms += evaluate_alerts([window])[0].alert is not None
    assert alarms == 0


def test_the_false_alarm_rate_on_stable_series_is_about_alpha() -> None:
    rng = np.random.default_rng(1)
    runs = 4000
    alarms = sum(
        evaluate_alerts([simulated(rng, [0.8] * 8)])[0].alert is not None for _ in range(runs)
    )
    # Measured 0.95%; the documented 1% with three standard errors (0.47 points) of room.
    assert alarms / runs <= 0.0147
    assert alarms / runs >= 0.005  # the test is not simply blind


def test_holm_keeps_a_family_of_stable_metrics_near_alpha() -> None:
    rng = np.random.default_rng(2)
    families = 1000
    any_alarm = 0
    for _ in range(families):
        family = [
            pass_series([int(rng.binomial(N, 0.8)) for _ in range(8)], metric=f"m{m}")
            for m in range(6)
        ]
        any_alarm += any(one.alert is not None for one in evaluate_alerts(family))
    assert any_alarm / families <= 0.02  # six metrics at 1% each would be ~5.9% uncorrected


def test_too_few_runs_are_not_tested_and_say_why() -> None:
    [series] = evaluate_alerts([pass_series([8] * 7 + [2], n=10)])
    assert series.alert is None and series.p_value is None
    assert series.note == (
        "not tested: 10 in the latest window and 70 in the baseline; the test needs 30 on each side"
    )


def test_a_single_window_is_not_tested() -> None:
    [series] = evaluate_alerts([pass_series([400])])
    assert series.alert is None
    assert series.note == "not tested: needs a measured latest window and one before it"


def test_informational_series_are_tested_but_never_alert() -> None:
    series = pass_series([400] * 7 + [350])
    series.role = "informational"
    evaluate_alerts([series])
    assert series.p_value is not None and series.p_value < 1e-6
    assert series.alert is None


def test_cost_alerts_only_on_a_significant_rise_beyond_the_tolerance() -> None:
    def cost(means: list[float], sd: float = 0.002) -> Series:
        points = [
            mean_point(*_day(i), N, m * N, N * (m * m) + (N - 1) * sd * sd)
            for i, m in enumerate(means)
        ]
        return Series("cost_usd", "cost per run (USD)", "mean", "gating", points)

    small = evaluate_alerts([cost([0.010] * 7 + [0.011])])[0]  # +10%: significant, tolerated
    assert small.p_value is not None and small.p_value < 1e-6
    assert small.alert is None
    large = evaluate_alerts([cost([0.010] * 7 + [0.013])])[0]  # +30%
    assert large.alert is not None
    assert large.alert.message.startswith("cost per run (USD) rose 0.010 → 0.013 ")
    cheaper = evaluate_alerts([cost([0.010] * 7 + [0.005])])[0]
    assert cheaper.alert is None and cheaper.p_value == pytest.approx(1.0)


def test_a_pooled_mean_baseline_is_the_mean_and_spread_of_all_its_runs() -> None:
    values = [[1.0, 2.0, 3.0], [4.0, 6.0], [5.0, 5.0, 5.0, 9.0]]
    points: list[Point] = []
    for i, window in enumerate(values):
        arr = np.array(window)
        points.append(mean_point(*_day(i), len(arr), arr.sum(), (arr * arr).sum()))
    latest = mean_point(*_day(3), 40, 40 * 4.0, 40 * 16.0 + 39 * 1.0)
    series = Series("turns", "turns per run", "mean", "gating", [*points, latest])
    evaluate_alerts([series], AlertPolicy(min_n=1))
    everything = np.concatenate([np.array(v) for v in values])
    assert series.baseline is not None
    assert series.baseline.n == 9
    assert series.baseline.value == pytest.approx(everything.mean())
    assert series.baseline.sd == pytest.approx(everything.std(ddof=1))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"alpha": 0.0}, "alpha must be between 0 and 1, got 0.0"),
        ({"baseline_windows": 0}, "baseline_windows must be ≥ 1, got 0"),
        ({"min_n": 0}, "min_n must be ≥ 1, got 0"),
    ],
)
def test_a_bad_policy_is_refused(changes: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        AlertPolicy(**changes)  # type: ignore[arg-type]
