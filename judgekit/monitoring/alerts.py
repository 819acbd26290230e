"""Drift alerts: is the latest window significantly worse than the windows before it?

For each series the latest window is tested against a *baseline*: the up to
``baseline_windows`` windows before it, pooled (the runs of the last week when windows are
days). Both sides need at least ``min_n`` observations, else the series says why it was
not tested.

* Proportions (pass rate, Truth, Path, State, binary rubrics): the one-sided pooled
  two-proportion z-test of "the latest rate is below the baseline's", the test the gate
  uses. Not "the latest Wilson interval lies below the baseline's point": that treats the
  baseline as exact and raises more false alarms the larger the baseline is.
* Means (cost and turns per run, Likert rubrics): the one-sided Welch z-test on the means
  (large windows; the standard deviation of each side from its sums of squares). Cost and
  turns alert only when, in addition, the mean rose by more than ``mean_tolerance``
  (0.2 = +20%): a significant rise of a cent on a dollar is not worth waking anyone.

Several gating metrics are several tests, so by default they are judged together with
Holm's step-down procedure: the chance that a stable system raises any alert in one
monitor run stays at most ``alpha``. Informational series (draft rubrics) are tested and
their p-value shown, but they never alert.

The default ``alpha`` is 0.01, stricter than the gate's 0.05: a monitor runs on a
schedule, day after day, and each false alarm costs someone's attention. Measured on
simulated stable series (``tests/monitoring/test_alerts.py``: 2,000 series of eight windows
of 500 runs at a true pass rate of 0.8, seeded), one metric alone alerts on 1.1% of them; a
drop from 0.80 to 0.70 in the latest window of 500 runs alerts every time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Literal

from judgekit._util.number_format import alert_value, p_equation, setting
from judgekit.monitoring.model import Alert, Point, Series
from judgekit.monitoring.points import mean_point, proportion_point
from judgekit.stats.multiple import holm_rejections
from judgekit.stats.proportions import two_proportion_test

# Metrics where a rise, not a drop, is the regression.
HIGHER_IS_WORSE = frozenset({"cost_usd", "turns"})


@dataclass(frozen=True)
class AlertPolicy:
    alpha: float = 0.01
    baseline_windows: int = 7
    min_n: int = 30
    mean_tolerance: float = 0.2
    correction: Literal["holm", "none"] = "holm"

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, got {self.alpha!r}")
        if self.baseline_windows < 1:
            raise ValueError(f"baseline_windows must be ≥ 1, got {self.baseline_windows!r}")
        if self.min_n < 1:
            raise ValueError(f"min_n must be ≥ 1, got {self.min_n!r}")


def evaluate_alerts(series: Sequence[Series], policy: AlertPolicy | None = None) -> list[Series]:
    """Test each series' latest window against its baseline; set ``baseline``, ``p_value``,
    ``note`` and, on gating series judged worse, ``alert``. Returns the same series."""
    rules = policy or AlertPolicy()
    tested: dict[str, Series] = {}
    for one in series:
        _test(one, rules)
        if one.p_value is not None and one.role == "gating":
            tested[one.metric] = one
    p_values = {metric: one.p_value for metric, one in tested.items() if one.p_value is not None}
    if rules.correction == "holm":
        worse = holm_rejections(p_values, alpha=rules.alpha)
    else:
        worse = {metric for metric, p in p_values.items() if p < rules.alpha}
    for metric in sorted(worse):
        one = tested[metric]
        message = _alert_message(one, rules, len(p_values))
        if message is not None:
            assert one.baseline is not None and one.p_value is not None
            one.alert = Alert(
                metric, one.baseline, one.points[-1], one.p_value, rules.alpha, message
            )
    return list(series)


def _test(series: Series, rules: AlertPolicy) -> None:
    measured = [point for point in series.points if point.n > 0 and point.value is not None]
    if len(series.points) < 2 or not measured or series.points[-1] is not measured[-1]:
        series.note = _join(
            series.note, "not tested: needs a measured latest window and one before it"
        )
        return
    latest = series.points[-1]
    before = [p for p in series.points[:-1] if p.n > 0 and p.value is not None]
    window = before[-rules.baseline_windows :]
    if not window:
        series.note = _join(series.note, "not tested: no measured window before the latest")
        return
    baseline = _pooled_proportion(window) if series.kind == "proportion" else _pooled_mean(window)
    series.baseline = baseline
    series.baseline_labels = [point.label for point in window]
    if latest.n < rules.min_n or baseline.n < rules.min_n:
        series.note = _join(
            series.note,
            f"not tested: {latest.n} in the latest window and {baseline.n} in the baseline; "
            f"the test needs {rules.min_n} on each side",
        )
        return
    if series.kind == "proportion":
        assert baseline.successes is not None and latest.successes is not None
        test = two_proportion_test(baseline.successes, baseline.n, latest.successes, latest.n)
        series.p_value = test.p_value_larger
    else:
        series.p_value = _welch_p(
            baseline, latest, higher_is_worse=series.metric in HIGHER_IS_WORSE
        )


def _alert_message(series: Series, rules: AlertPolicy, tests: int) -> str | None:
    """The alert's text, or None when a significant rise of cost or turns stays within
    the tolerance."""
    baseline, latest = series.baseline, series.points[-1]
    assert baseline is not None and baseline.value is not None and latest.value is not None
    assert series.p_value is not None
    if series.metric in HIGHER_IS_WORSE:
        if baseline.value > 0 and latest.value / baseline.value - 1 <= rules.mean_tolerance:
            return None
        change = "rose"
    else:
        change = "dropped"
    correction = (
        f", Holm across {tests} metrics" if rules.correction == "holm" and tests > 1 else ""
    )
    return (
        f"{series.title} {change} {alert_value(baseline.value)} → {alert_value(latest.value)} "
        f"(baseline {baseline.label}: n = {baseline.n}; latest {latest.label}: n = {latest.n}); "
        f"one-sided {p_equation(series.p_value)}, alpha {setting(rules.alpha)}{correction}"
    )


def _pooled_proportion(window: Sequence[Point]) -> Point:
    n = sum(p.n for p in window)
    successes = sum(p.successes or 0 for p in window)
    return proportion_point(_span(window), window[0].at, n, successes)


def _pooled_mean(window: Sequence[Point]) -> Point:
    # The sum of squares of every observation, recovered from each window's mean and sd:
    # the pooled spread includes the wobble between windows, not only within them.
    total = sum(p.n * (p.value or 0.0) for p in window)
    squares = sum((p.n - 1) * (p.sd or 0.0) ** 2 + p.n * (p.value or 0.0) ** 2 for p in window)
    return mean_point(_span(window), window[0].at, sum(p.n for p in window), total, squares)


def _welch_p(baseline: Point, latest: Point, *, higher_is_worse: bool) -> float:
    assert baseline.value is not None and latest.value is not None
    error = math.sqrt((baseline.sd or 0.0) ** 2 / baseline.n + (latest.sd or 0.0) ** 2 / latest.n)
    rise = latest.value - baseline.value
    worse = rise if higher_is_worse else -rise
    if error == 0:
        return 0.0 if worse > 0 else 1.0
    return 1 - NormalDist().cdf(worse / error)


def _span(window: Sequence[Point]) -> str:
    if len(window) == 1:
        return window[0].label
    return f"{window[0].label} … {window[-1].label} ({len(window)} windows)"


def _join(first: str | None, second: str) -> str:
    return second if not first else f"{first}; {second}"


def with_role(series: Series, role: Literal["gating", "informational"], note: str) -> Series:
    """A copy of ``series`` with another role and a note saying why."""
    return replace(series, role=role, note=_join(series.note, note))
