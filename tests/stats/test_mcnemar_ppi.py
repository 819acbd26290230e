"""McNemar against statsmodels; prediction-powered inference against its definition."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import mcnemar

from judgekit.stats import (
    BoundedRate,
    UndefinedStatisticWarning,
    mcnemar_test,
    ppi_mean_interval,
    ppi_rate_interval,
)


def _table(a: list[bool], b: list[bool]) -> list[list[int]]:
    cell = lambda x, y: sum(1 for p, q in zip(a, b, strict=True) if p is x and q is y)  # noqa: E731
    return [[cell(True, True), cell(True, False)], [cell(False, True), cell(False, False)]]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=80))
def test_mcnemar_matches_statsmodels(pairs: list[tuple[bool, bool]]) -> None:
    a, b = [p for p, _ in pairs], [q for _, q in pairs]
    table = _table(a, b)
    exact = mcnemar(table, exact=True).pvalue
    assert mcnemar_test(a, b) == pytest.approx(exact, rel=1e-9, abs=1e-15)
    only_a, only_b = table[0][1], table[1][0]
    assume(only_a != only_b)  # statsmodels' correction goes below 0 when they are equal
    chi2 = mcnemar(table, exact=False, correction=True).pvalue
    assert mcnemar_test(a, b, exact=False) == pytest.approx(chi2, rel=1e-9)


def test_mcnemar_hand_worked_and_edges() -> None:
    # 8 items only a gets right, none only b: exact p = 2 · P(X ≤ 0 | 8, 1/2) = 2/256
    a = [True] * 8 + [True] * 2 + [False] * 2
    b = [False] * 8 + [True] * 2 + [False] * 2
    assert mcnemar_test(a, b) == pytest.approx(2 / 2**8)  # 2·P(X ≤ 0 | 8, 1/2)
    assert mcnemar_test([True, False], [True, False]) == 1.0
    assert mcnemar_test([True, False], [False, True], exact=False) == 1.0
    big = mcnemar_test([True] * 60000 + [False] * 40000, [False] * 60000 + [True] * 40000)
    assert big == 0.0 or big < 1e-300
    with pytest.raises(ValueError, match="no pairs"):
        mcnemar_test([], [])
    with pytest.raises(ValueError, match="got 2 and 1"):
        mcnemar_test([True, False], [True])
    with pytest.raises(ValueError, match="booleans"):
        mcnemar_test(["yes"], [True])  # type: ignore[list-item]


def test_ppi_by_definition() -> None:
    y = [1, 0, 1, 1, 0, 1]
    f_lab = [1, 0, 0, 1, 1, 1]
    f_unl = [1, 1, 0, 1, 0, 1, 1, 0]
    estimate, low, high = ppi_mean_interval(y, f_lab, f_unl)
    rect = np.array(y) - np.array(f_lab)
    expected = np.mean(f_unl) + rect.mean()
    se = math.sqrt(np.var(f_unl, ddof=1) / 8 + np.var(rect, ddof=1) / 6)
    assert estimate == pytest.approx(expected)
    assert (low, high) == pytest.approx(
        (expected - 1.959963984540054 * se, expected + 1.959963984540054 * se)
    )
    # PPI++: λ = cov(Y, f) / ((1 + n/N) var(f over all)); with λ = 0 it is the classical mean
    lam = np.cov(y, f_lab, ddof=1)[0, 1] / ((1 + 6 / 8) * np.var(f_lab + f_unl, ddof=1))
    tuned, _, _ = ppi_mean_interval(y, f_lab, f_unl, tuned=True)
    assert tuned == pytest.approx(np.mean(y) + lam * (np.mean(f_unl) - np.mean(f_lab)))
    constant, lo0, hi0 = ppi_mean_interval(y, [1] * 6, [1] * 8, tuned=True)
    assert constant == pytest.approx(np.mean(y))
    assert hi0 - lo0 == pytest.approx(2 * 1.959963984540054 * math.sqrt(np.var(y, ddof=1) / 6))


def test_ppi_edges() -> None:
    with pytest.raises(ValueError, match="no pairs"):
        ppi_mean_interval([], [], [1, 0])
    with pytest.raises(ValueError, match="same length, got 2 and 1"):
        ppi_mean_interval([1, 0], [1], [1, 0])
    with pytest.raises(ValueError, match="judge_on_unlabelled is empty"):
        ppi_mean_interval([1, 0], [1, 0], [])
    with pytest.raises(ValueError, match="numbers"):
        ppi_mean_interval(["a", "b"], [1, 0], [1, 0])  # type: ignore[list-item]
    with pytest.warns(UndefinedStatisticWarning):
        result = ppi_mean_interval([1], [1], [1, 0, 1])
    assert all(math.isnan(v) for v in result)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        estimate, low, high = ppi_mean_interval([True, False], [True, False], [True, False, True])
    assert estimate == pytest.approx(2 / 3) and low < estimate < high


def test_ppi_rate_interval_is_ppi_clipped_to_0_1() -> None:
    # Humans pass 5 of 8 (the judge 3 of them); the judge passes 5 of 7 others.
    y = [1] * 5 + [0] * 3
    f_lab = [1] * 3 + [0] * 5
    f_unl = [1] * 5 + [0] * 2
    estimate, low, high = ppi_mean_interval(y, f_lab, f_unl)
    assert (round(estimate, 3), round(low, 3), round(high, 3)) == (0.964, 0.481, 1.448)
    assert ppi_rate_interval(y, f_lab, f_unl) == BoundedRate(estimate, low, 1.0, clipped=True)
    # Below 0 as well: humans fail all four, the judge passes one of them and none of the
    # others, so PPI is 0 − 1/4 with a rectifier variance of 1/4.
    rate = ppi_rate_interval([0] * 4, [1, 0, 0, 0], [0, 0, 0])
    assert (rate.estimate, rate.low, rate.clipped) == (0.0, 0.0, True)
    assert rate.high == pytest.approx(-0.25 + 1.959963984540054 * math.sqrt(0.25 / 4))
    # Inside [0, 1]: PPI's own figures, not marked.
    inside = ppi_rate_interval([1, 0, 1, 1, 0, 1] * 4, [1, 0, 0, 1, 1, 1] * 4, [1, 1, 0, 0] * 5)
    assert inside == BoundedRate(
        *ppi_mean_interval([1, 0, 1, 1, 0, 1] * 4, [1, 0, 0, 1, 1, 1] * 4, [1, 1, 0, 0] * 5),
        clipped=False,
    )
    tuned = ppi_rate_interval(y, f_lab, f_unl, tuned=True)
    assert 0 <= tuned.low <= tuned.estimate <= tuned.high <= 1


def test_ppi_rate_interval_wholly_outside_0_1_is_undefined() -> None:
    with pytest.warns(UndefinedStatisticWarning) as caught:
        rate = ppi_rate_interval([1, 1], [0, 0], [1, 1])  # 1 + 1, no spread
    assert [str(w.message) for w in caught] == [
        "the prediction-powered interval lies wholly outside [0, 1]: the judge's errors on "
        "the labelled items do not fit its verdicts on the others"
    ]
    assert all(math.isnan(v) for v in (rate.estimate, rate.low, rate.high))
    assert rate.clipped is False
