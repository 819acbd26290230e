"""Rates kept inside [0, 1]. A method built on a normal approximation or a linear correction
(prediction-powered inference, Rogan–Gladen) can put a rate's estimate or bound outside it;
the figure is then moved to the nearer edge and marked ``clipped``, so a report can say so.

Clipping loses nothing a rate could have: the true rate lies in [0, 1], so an interval cut
to [0, 1] covers it whenever the whole interval did, and a clipped estimate is never further
from it than the estimate was. No numpy here: the corrections' callers load it cheaply.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from judgekit.stats._contract import StatisticsInputError

__all__ = ["BoundedRate", "clip_rate", "clip_rate_interval", "outside_unit_interval"]


@dataclass(frozen=True)
class BoundedRate:
    """A rate's ``estimate`` and interval ``[low, high]``, all in [0, 1] (or all nan, when
    the rate is undefined); ``clipped`` says a figure of the method lay outside [0, 1] and
    was moved to its edge."""

    estimate: float
    low: float
    high: float
    clipped: bool


def clip_rate(value: float) -> tuple[float, bool]:
    """``value`` moved into [0, 1], and whether it had to move (nan stays nan, not moved).

    >>> clip_rate(1.1667), clip_rate(0.4), clip_rate(-0.02)
    ((1.0, True), (0.4, False), (0.0, True))
    """
    if math.isnan(value):
        return value, False
    clipped = min(1.0, max(0.0, value))
    return clipped, clipped != value


def clip_rate_interval(estimate: float, low: float, high: float) -> BoundedRate:
    """The estimate and both bounds of a rate moved into [0, 1].

    An interval wholly outside [0, 1] is refused (clipped, it would become a single point,
    a certainty the data never gave): the caller reports that rate as undefined.

    >>> clip_rate_interval(0.964, 0.481, 1.448)
    BoundedRate(estimate=0.964, low=0.481, high=1.0, clipped=True)
    """
    if not low <= high:
        raise StatisticsInputError(f"an interval needs low ≤ high, got [{low!r}, {high!r}]")
    if outside_unit_interval(low, high):
        raise StatisticsInputError(f"the interval [{low!r}, {high!r}] lies wholly outside [0, 1]")
    bounded = [clip_rate(value) for value in (estimate, low, high)]
    return BoundedRate(
        estimate=bounded[0][0],
        low=bounded[1][0],
        high=bounded[2][0],
        clipped=any(moved for _, moved in bounded),
    )


def outside_unit_interval(low: float, high: float) -> bool:
    """Whether the interval ``[low, high]`` shares no point with [0, 1]."""
    return low > 1.0 or high < 0.0
