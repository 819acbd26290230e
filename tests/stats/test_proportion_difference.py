"""The difference of two proportions against statsmodels' Newcombe interval."""

from __future__ import annotations

import math

import pytest
from statsmodels.stats.proportion import confint_proportions_2indep

from judgekit.stats import UndefinedStatisticWarning
from judgekit.stats.proportion_difference import proportion_difference

CASES = [(6, 10, 2, 10), (0, 7, 3, 12), (5, 5, 0, 9), (1, 40, 1, 40), (13, 20, 19, 25)]


@pytest.mark.parametrize(("x1", "n1", "x2", "n2"), CASES)
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_equals_statsmodels_newcomb(x1: int, n1: int, x2: int, n2: int, confidence: float) -> None:
    ours = proportion_difference(x1, n1, x2, n2, confidence=confidence)
    low, high = confint_proportions_2indep(
        x1, n1, x2, n2, method="newcomb", compare="diff", alpha=1 - confidence
    )
    assert ours.difference == pytest.approx(x1 / n1 - x2 / n2, abs=1e-15)
    assert (ours.low, ours.high) == pytest.approx((low, high), abs=1e-12)


def test_a_side_without_trials_is_undefined() -> None:
    with pytest.warns(UndefinedStatisticWarning, match="needs trials on both sides"):
        empty = proportion_difference(0, 0, 1, 4)
    assert math.isnan(empty.difference) and math.isnan(empty.high)
    assert proportion_difference(1, 4, 0, 0, replace_undefined_by=-1.0).low == -1.0
