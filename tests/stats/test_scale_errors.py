"""Likert errors and per-class scores against scipy, statsmodels and scikit-learn."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import mean_absolute_error, precision_recall_fscore_support
from statsmodels.stats.weightstats import DescrStatsW

from judgekit.stats import StatisticsInputError, UndefinedStatisticWarning
from judgekit.stats.scale_errors import likert_errors, per_class_scores, t_quantile


@pytest.mark.parametrize("df", [1, 2, 3, 4.5, 9, 30, 299, 5000])
@pytest.mark.parametrize("p", [0.0005, 0.025, 0.3, 0.5, 0.9, 0.975, 0.9995])
def test_t_quantile_equals_scipy(df: float, p: float) -> None:
    assert t_quantile(p, df) == pytest.approx(scipy_stats.t.ppf(p, df), rel=1e-9, abs=1e-11)


def test_t_quantile_refuses_impossible_input() -> None:
    with pytest.raises(StatisticsInputError, match=r"need 0 < probability < 1 and df > 0"):
        t_quantile(1.0, 3)
    with pytest.raises(StatisticsInputError):
        t_quantile(0.5, 0)


def test_hand_worked_likert_errors() -> None:
    # errors judge − human: +1, 0, +2, 0, -1 → MAE 4/5, MSE 2/5
    errors = likert_errors([1, 2, 3, 4, 5], [2, 2, 5, 4, 4])
    assert errors.n == 5
    assert errors.mean_absolute_error.mean == 0.8
    assert errors.mean_signed_error.mean == 0.4


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_likert_errors_equal_sklearn_and_statsmodels(seed: int, confidence: float) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 80)
    human = [rng.randint(1, 5) for _ in range(n)]
    judged = [min(5, max(1, h + rng.choice([-2, -1, 0, 0, 0, 1, 1]))) for h in human]
    errors = likert_errors(human, judged, confidence=confidence)
    mae = errors.mean_absolute_error
    assert mae.mean == pytest.approx(mean_absolute_error(human, judged), abs=1e-12)
    signed = np.array(judged, float) - np.array(human, float)
    for figure, values in ((mae, np.abs(signed)), (errors.mean_signed_error, signed)):
        if np.all(values == values[0]):  # no spread: statsmodels gives nan, the interval is a point
            assert figure.low == figure.high == pytest.approx(values[0])
            continue
        low, high = DescrStatsW(values).tconfint_mean(alpha=1 - confidence)
        assert (figure.low, figure.high) == pytest.approx((low, high), rel=1e-9)


def test_likert_edges_are_undefined_or_replaced() -> None:
    with pytest.warns(UndefinedStatisticWarning, match="without runs"):
        empty = likert_errors([], [])
    assert math.isnan(empty.mean_absolute_error.mean)
    with pytest.warns(UndefinedStatisticWarning, match="at least two runs"):
        one = likert_errors([3], [5])
    assert one.mean_signed_error.mean == 2.0 and math.isnan(one.mean_signed_error.low)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = likert_errors([3], [5], replace_undefined_by=math.nan)
    assert math.isnan(quiet.mean_absolute_error.high)
    with pytest.raises(StatisticsInputError, match="same length, got 2 and 1"):
        likert_errors([1, 2], [1])
    with pytest.raises(StatisticsInputError, match="Likert scores must be numbers, got 'x'"):
        likert_errors([1, "x"], [1, 2])  # type: ignore[list-item]


CASES = [
    # every class both chosen and labelled
    (["a", "b", "c", "a", "b", "c", "a"], ["a", "b", "b", "a", "c", "c", "b"], ["a", "b", "c"]),
    # the judge never chooses c (precision undefined); nobody labelled d (all undefined)
    (["a", "a", "b", "c"], ["a", "b", "b", "b"], ["a", "b", "c", "d"]),
    # binary-like, one class only in the human labels
    (["x", "x", "x"], ["x", "y", "x"], ["x", "y"]),
]


@pytest.mark.parametrize(("human", "judged", "labels"), CASES)
@pytest.mark.parametrize("zero_division", [0.0, 1.0, math.nan])
def test_per_class_scores_equal_sklearn(
    human: list[str], judged: list[str], labels: list[str], zero_division: float
) -> None:
    ours = per_class_scores(human, judged, labels=labels, replace_undefined_by=zero_division)
    precision, recall, f1, support = precision_recall_fscore_support(
        human, judged, labels=labels, zero_division=zero_division
    )
    for index, label in enumerate(labels):
        scores = ours.classes[label]
        np.testing.assert_allclose(
            [scores.precision, scores.recall, scores.f1],
            [precision[index], recall[index], f1[index]],
            rtol=1e-12,
        )
        assert scores.support == support[index]
    macro = precision_recall_fscore_support(
        human, judged, labels=labels, zero_division=zero_division, average="macro"
    )
    np.testing.assert_allclose(
        [ours.macro_precision, ours.macro_recall, ours.macro_f1], macro[:3], rtol=1e-12
    )


def test_per_class_undefined_warns_by_default() -> None:
    with pytest.warns(UndefinedStatisticWarning, match=r"precision of 'c' is undefined"):
        scores = per_class_scores(["a", "c"], ["a", "a"], labels=["a", "c"])
    assert math.isnan(scores.classes["c"].precision)
    assert scores.classes["c"].recall == 0.0
    assert scores.macro_precision == 0.5  # a: 1/2; c left out of the average
