"""How the report writes a value in a table cell: rates, intervals, figures, means.

A missing value is a dash; an undefined calibration figure says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from judgekit._util import number_format
from judgekit._util.number_format import (
    DASH,
    UNDEFINED,
    bracketed_interval,
    monitor_mean,
    percent,
    rate,
)
from judgekit.monitoring.model import MetricKind, Point

__all__ = [
    "failed_fraction",
    "figure",
    "figure_ci",
    "interval_text",
    "mean",
    "metric_value",
    "point_text",
    "rate",
    "rate_ci",
]


def interval_text(bounds: Sequence[float | None] | None) -> str | None:
    if not bounds or len(bounds) != 2 or bounds[0] is None or bounds[1] is None:
        return None
    return number_format.interval(bounds[0], bounds[1])


def rate_ci(value: float | None, bounds: Sequence[float | None] | None) -> str:
    """``0.25 (0.05–0.70)``: a rate with its interval, as the terminal table shows it."""
    if value is None:
        return DASH
    interval = interval_text(bounds)
    return rate(value) if interval is None else f"{rate(value)} ({interval})"


def figure(value: float | None) -> str:
    return number_format.statistic(value)


def figure_ci(value: float | None, bounds: Sequence[float | None] | None) -> str:
    """``0.512 [0.301, 0.723]``: a calibration figure, as ``judgekit calibrate`` shows it."""
    if value is None:
        return UNDEFINED
    if not bounds or len(bounds) != 2:
        return f"{figure(value)} [{UNDEFINED}]"
    return f"{figure(value)} {bracketed_interval(bounds[0], bounds[1])}"


def failed_fraction(tally: Mapping[str, int] | None) -> str:
    """``3/40``: runs a grader failed of those it graded (as grade's What failed table)."""
    return DASH if not tally else f"{tally['graded'] - tally['passed']}/{tally['graded']}"


def mean(measure: Mapping[str, Any] | None, show: Callable[[float], str]) -> str:
    """A measure's mean as ``show`` prints it (``number_format.mean_count``, ``.cost``)."""
    if not measure or measure.get("mean") is None:
        return DASH
    return show(measure["mean"])


def metric_value(value: float | None, kind: MetricKind | None) -> str:
    if value is None:
        return DASH
    return percent(value) if kind == "proportion" else monitor_mean(value)


def point_text(point: Point, kind: MetricKind | None) -> str:
    """``45.0% (25.8%–65.8%)``: a window's value with its interval."""
    text = metric_value(point.value, kind)
    if point.value is not None and point.low is not None and point.high is not None:
        text += f" ({metric_value(point.low, kind)}–{metric_value(point.high, kind)})"
    return text
