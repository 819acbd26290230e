"""How the report writes a value in a table cell: rates, intervals, figures, means.

A missing value is a dash; an undefined calibration figure says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judgekit.monitoring.model import MetricKind, Point
from judgekit.report.html_blocks import DASH

__all__ = [
    "figure",
    "figure_ci",
    "fraction",
    "interval_text",
    "mean",
    "metric_value",
    "point_text",
    "rate",
    "rate_ci",
]


def rate(value: float | None) -> str:
    return DASH if value is None else f"{value:.2f}"


def interval_text(bounds: Sequence[float | None] | None) -> str | None:
    if not bounds or len(bounds) != 2 or bounds[0] is None or bounds[1] is None:
        return None
    return f"{bounds[0]:.2f}–{bounds[1]:.2f}"


def rate_ci(value: float | None, bounds: Sequence[float | None] | None) -> str:
    """``0.25 (0.05–0.70)``: a rate with its interval, as the terminal table shows it."""
    if value is None:
        return DASH
    interval = interval_text(bounds)
    return rate(value) if interval is None else f"{value:.2f} ({interval})"


def figure(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def figure_ci(value: float | None, bounds: Sequence[float | None] | None) -> str:
    """``0.512 [0.301, 0.723]``: a calibration figure, as ``judgekit calibrate`` shows it."""
    if value is None:
        return "undefined"
    if not bounds or len(bounds) != 2 or bounds[0] is None or bounds[1] is None:
        return f"{value:.3f} [undefined]"
    return f"{value:.3f} [{bounds[0]:.3f}, {bounds[1]:.3f}]"


def fraction(tally: Mapping[str, int] | None) -> str:
    return DASH if not tally else f"{tally['passed']}/{tally['graded']}"


def mean(measure: Mapping[str, Any] | None, template: str) -> str:
    if not measure or measure.get("mean") is None:
        return DASH
    return template.format(measure["mean"])


def metric_value(value: float | None, kind: MetricKind | None) -> str:
    if value is None:
        return DASH
    return f"{value:.1%}" if kind == "proportion" else f"{value:.4g}"


def point_text(point: Point, kind: MetricKind | None) -> str:
    """``45.0% (25.8%–65.8%)``: a window's value with its interval."""
    text = metric_value(point.value, kind)
    if point.value is not None and point.low is not None and point.high is not None:
        text += f" ({metric_value(point.low, kind)}–{metric_value(point.high, kind)})"
    return text
