"""A window's point from its counts and sums: a rate with its Wilson interval, or a mean
with its normal interval. No database here, so alerts can pool windows without loading one."""

from __future__ import annotations

import math
import sys
from datetime import datetime
from typing import Any

from judgekit.monitoring.model import Point
from judgekit.stats.proportions import Z_95, wilson_interval


def proportion_point(label: str, at: datetime, n: Any, successes: Any) -> Point:
    count, passed = int(n or 0), round(float(successes or 0))
    if count == 0:
        return Point(label, at, 0, None, None, None, successes=0)
    low, high = wilson_interval(passed, count)
    return Point(label, at, count, passed / count, low, high, successes=passed)


def mean_point(label: str, at: datetime, n: Any, total: Any, squares: Any) -> Point:
    count = int(n or 0)
    if count == 0:
        return Point(label, at, 0, None, None, None)
    mean = float(total) / count
    if count < 2:
        return Point(label, at, count, mean, None, None)
    # Sums of squares lose precision when the spread is tiny next to the mean: a residual
    # within the sums' rounding (about count·ε of the sum of squares) is no spread at all, so
    # a constant cost shows ±0, not a float's noise.
    residual = float(squares) - count * mean * mean
    rounding = count * sys.float_info.epsilon * abs(float(squares))
    variance = residual / (count - 1) if residual > rounding else 0.0
    sd = math.sqrt(variance)
    half = Z_95 * sd / math.sqrt(count)
    return Point(label, at, count, mean, mean - half, mean + half, sd=sd)
