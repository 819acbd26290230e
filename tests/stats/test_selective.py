"""Exact binomial tails against exact rational arithmetic and scipy, bounds against scipy and
statsmodels; fixed-sequence threshold choice on hand-worked cases and its edges (no errors,
all errors, one verdict, ties)."""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom, binomtest
from statsmodels.stats.proportion import proportion_confint

from judgekit.stats import StatisticsInputError
from judgekit.stats.selective import (
    binomial_cdf,
    binomial_sf,
    clopper_pearson_upper,
    coverage_curve,
    fixed_sequence_threshold,
)


@st.composite
def counts(draw: st.DrawFn) -> tuple[int, int]:
    n = draw(st.integers(min_value=1, max_value=300))
    return draw(st.integers(min_value=0, max_value=n)), n


def _exact_tail(low: int, high: int, n: int, p: float) -> float:
    """P(low ≤ X ≤ high) for X ~ Binomial(n, p), in exact rational arithmetic."""
    q = Fraction(p)
    return float(sum(comb(n, i) * q**i * (1 - q) ** (n - i) for i in range(low, high + 1)))


@settings(max_examples=150, deadline=None)
@given(counts(), st.floats(min_value=0.001, max_value=0.999))
def test_binomial_tails_match_exact_arithmetic_and_scipy(kn: tuple[int, int], p: float) -> None:
    k, n = kn
    cdf, sf = binomial_cdf(k, n, p), binomial_sf(k, n, p)
    assert cdf == pytest.approx(_exact_tail(0, k, n, p), rel=1e-11, abs=1e-300)
    assert sf == pytest.approx(_exact_tail(k, n, n, p), rel=1e-11, abs=1e-300)
    # scipy's tails lose relative precision far out (P(X ≥ 209) for Bin(224, 1/32) ≈ 1.4e-292
    # is off in its 8th digit there), so they are a reference only above 1e-200.
    if binom.cdf(k, n, p) > 1e-200:
        assert cdf == pytest.approx(binom.cdf(k, n, p), rel=1e-9)
    if binom.sf(k - 1, n, p) > 1e-200:
        assert sf == pytest.approx(binom.sf(k - 1, n, p), rel=1e-9)


def test_a_far_tail_is_exact_where_scipy_s_is_not() -> None:
    exact = _exact_tail(209, 224, 224, 0.03125)
    assert binomial_sf(209, 224, 0.03125) == pytest.approx(exact, rel=1e-12)
    assert exact == pytest.approx(1.4026091661776092e-292, rel=1e-15)


@settings(max_examples=150, deadline=None)
@given(counts(), st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.5]))
def test_upper_bound_matches_statsmodels_and_scipy(kn: tuple[int, int], delta: float) -> None:
    k, n = kn
    # A one-sided (1 - delta) bound is the upper end of the two-sided (1 - 2 delta) interval.
    expected = proportion_confint(k, n, alpha=2 * delta, method="beta")[1]
    assert clopper_pearson_upper(k, n, delta=delta) == pytest.approx(expected, rel=1e-9, abs=1e-12)
    scipy_bound = binomtest(k, n).proportion_ci(1 - delta, method="exact").high
    if k < n:  # scipy gives the upper end of a two-sided interval; at 1 - 2 delta it is ours
        scipy_bound = binomtest(k, n).proportion_ci(1 - 2 * delta, method="exact").high
    assert clopper_pearson_upper(k, n, delta=delta) == pytest.approx(scipy_bound, rel=1e-9)


def test_upper_bound_edges() -> None:
    assert clopper_pearson_upper(0, 10, delta=0.05) == pytest.approx(1 - 0.05 ** (1 / 10))
    assert clopper_pearson_upper(10, 10, delta=0.05) == 1.0
    assert clopper_pearson_upper(0, 1, delta=0.1) == pytest.approx(0.9)
    assert clopper_pearson_upper(0, 0, delta=0.1) == 1.0
    assert binomial_cdf(0, 0, 0.3) == 1.0
    assert binomial_cdf(3, 10, 0.0) == 1.0 and binomial_cdf(3, 10, 1.0) == 0.0
    assert binomial_sf(0, 10, 0.3) == 1.0 and binomial_sf(3, 10, 0.0) == 0.0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: binomial_cdf(5, 3, 0.5), "need k ≤ n, got k=5, n=3"),
        (lambda: binomial_cdf(-1, 3, 0.5), "k must be a whole number ≥ 0, got -1"),
        (lambda: binomial_cdf(1, 3, 1.5), "p must be in [0, 1], got 1.5"),
        (lambda: clopper_pearson_upper(1, 3, delta=0.0), "delta must be in (0, 1), got 0.0"),
        (
            lambda: fixed_sequence_threshold([0.5], [True, False], alpha=0.1, delta=0.1),
            "confidences and correct differ in length: 1 and 2",
        ),
        (
            lambda: fixed_sequence_threshold([1.2], [True], alpha=0.1, delta=0.1),
            "a confidence must be in [0, 1], got 1.2",
        ),
        (
            lambda: fixed_sequence_threshold([0.5], [1], alpha=0.1, delta=0.1),
            "correct must be booleans, got 1",
        ),
        (
            lambda: fixed_sequence_threshold([0.5], [True], alpha=1.0, delta=0.1),
            "alpha must be in (0, 1), got 1.0",
        ),
    ],
)
def test_impossible_input_is_refused(call: object, message: str) -> None:
    with pytest.raises(StatisticsInputError) as caught:
        call()  # type: ignore[operator]
    assert str(caught.value) == message


def test_fixed_sequence_stops_at_the_first_non_rejection() -> None:
    # 30 verdicts at 1.0 all right; 10 at 0.8 with 1 wrong; 10 at 0.6 with 5 wrong.
    confidences = [1.0] * 30 + [0.8] * 10 + [0.6] * 10
    correct = [True] * 30 + [True] * 9 + [False] + [True] * 5 + [False] * 5
    result = fixed_sequence_threshold(confidences, correct, alpha=0.1, delta=0.1)
    steps = [(s.threshold, s.kept, s.errors, s.rejected) for s in result.steps]
    assert steps == [(1.0, 30, 0, True), (0.8, 40, 1, True), (0.6, 50, 6, False)]
    assert result.steps[0].p_value == pytest.approx(0.9**30)
    assert result.steps[1].p_value == pytest.approx(binom.cdf(1, 40, 0.1))
    assert result.threshold == 0.8
    assert result.coverage == 0.8
    assert result.agreement_on_kept == 39 / 40
    expected_upper = proportion_confint(1, 40, alpha=0.2, method="beta")[1]
    assert result.guaranteed_agreement == pytest.approx(1 - expected_upper, rel=1e-9)
    assert result.guaranteed_agreement >= 0.9


def test_a_failed_test_stops_the_sequence_even_if_lower_ones_would_pass() -> None:
    # The top threshold keeps 2 verdicts, 1 wrong: not rejected, so nothing is chosen,
    # though adding the 100 right verdicts below would pass.
    result = fixed_sequence_threshold(
        [0.9, 0.9] + [0.5] * 100, [True, False] + [True] * 100, alpha=0.1, delta=0.1
    )
    assert [s.threshold for s in result.steps] == [0.9]
    assert result.threshold is None and result.coverage == 0.0
    assert result.agreement_on_kept is None and result.guaranteed_agreement is None


def test_edges_no_errors_all_errors_one_verdict_unknown_confidence() -> None:
    # No errors: the smallest m with 0.9**m ≤ 0.1 is 22, so 22 right verdicts suffice, 21 not.
    assert fixed_sequence_threshold([0.7] * 22, [True] * 22, alpha=0.1, delta=0.1).coverage == 1.0
    assert fixed_sequence_threshold([0.7] * 21, [True] * 21, alpha=0.1, delta=0.1).threshold is None
    every_error = fixed_sequence_threshold([0.7] * 50, [False] * 50, alpha=0.1, delta=0.1)
    assert every_error.threshold is None and every_error.steps[0].p_value == pytest.approx(1.0)
    one = fixed_sequence_threshold([1.0], [True], alpha=0.5, delta=0.5)
    assert (one.threshold, one.coverage, one.steps[0].p_value) == (1.0, 1.0, 0.5)
    nothing = fixed_sequence_threshold([None, None], [True, True], alpha=0.1, delta=0.1)
    assert nothing.steps == [] and nothing.threshold is None and nothing.n == 2
    # An unknown confidence is never kept but counts in the coverage's denominator.
    some = fixed_sequence_threshold([1.0] * 22 + [None] * 22, [True] * 44, alpha=0.1, delta=0.1)
    assert some.coverage == 0.5


def test_ties_are_kept_together() -> None:
    result = fixed_sequence_threshold(
        [0.8, 0.8, 0.8, 0.4], [True, False, True, True], alpha=0.5, delta=0.6
    )
    assert [(s.threshold, s.kept, s.errors) for s in result.steps] == [(0.8, 3, 1), (0.4, 4, 1)]


def test_coverage_curve_points_and_thinning() -> None:
    confidences = [1.0] * 30 + [0.8] * 10 + [0.6] * 10
    correct = [True] * 39 + [False] + [True] * 5 + [False] * 5
    curve = coverage_curve(confidences, correct, delta=0.1)
    assert [(p.threshold, p.kept, p.errors, p.coverage) for p in curve] == [
        (1.0, 30, 0, 0.6),
        (0.8, 40, 1, 0.8),
        (0.6, 50, 6, 1.0),
    ]
    assert curve[0].guaranteed_agreement == pytest.approx(0.1 ** (1 / 30))
    many = coverage_curve([i / 1000 for i in range(1000)], [True] * 1000, delta=0.1, max_points=5)
    assert [p.kept for p in many] == [1, 251, 501, 750, 1000]
    assert math.isclose(many[-1].coverage, 1.0)
