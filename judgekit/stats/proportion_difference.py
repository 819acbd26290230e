"""The difference of two independent proportions with Newcombe's hybrid score interval.

Newcombe (1998), method 10: each proportion's Wilson interval, combined so that the
interval of p1 − p2 stays inside [−1, 1] and is honest near 0 and 1 (statsmodels'
``confint_proportions_2indep(..., method="newcomb")``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from judgekit.stats._contract import ReplaceUndefined, undefined
from judgekit.stats.proportions import wilson_interval

__all__ = ["ProportionDifference", "proportion_difference"]


@dataclass(frozen=True)
class ProportionDifference:
    """p1 − p2 and its interval (nan where a side has no trials)."""

    difference: float
    low: float
    high: float


def proportion_difference(
    successes_1: int,
    n_1: int,
    successes_2: int,
    n_2: int,
    *,
    confidence: float = 0.95,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> ProportionDifference:
    """``successes_1/n_1 − successes_2/n_2`` with Newcombe's hybrid score interval.

    >>> d = proportion_difference(6, 10, 2, 10)
    >>> round(d.difference, 3), round(d.low, 4), round(d.high, 4)
    (0.4, -0.0226, 0.6725)
    """
    if n_1 == 0 or n_2 == 0:
        nan = undefined(
            "a difference of proportions needs trials on both sides", replace_undefined_by
        )
        return ProportionDifference(nan, nan, nan)
    low_1, high_1 = wilson_interval(successes_1, n_1, confidence=confidence)
    low_2, high_2 = wilson_interval(successes_2, n_2, confidence=confidence)
    p_1, p_2 = successes_1 / n_1, successes_2 / n_2
    difference = p_1 - p_2
    return ProportionDifference(
        difference,
        difference - math.sqrt((p_1 - low_1) ** 2 + (high_2 - p_2) ** 2),
        difference + math.sqrt((high_1 - p_1) ** 2 + (p_2 - low_2) ** 2),
    )
