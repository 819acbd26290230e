"""The statistics of repeated trials: pass@k, pass^k, Wilson intervals, two-proportion tests.

Conventions, as in scikit-learn's metrics: options are keyword-only; an impossible input
(``c > n``, a negative count, ``k < 1``) raises :class:`StatisticsInputError` (a
``ValueError``) saying what was received; a value the data cannot define (no trials,
``k > n``) is ``nan`` with an :class:`UndefinedStatisticWarning`, never a silent 0, unless
``replace_undefined_by=`` names the value to return instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from judgekit.stats._contract import (
    ReplaceUndefined,
    StatisticsInputError,
    UndefinedStatisticWarning,
    check_replacement,
    undefined,
    z_value,
)

__all__ = [
    "TwoProportionTest",
    "UndefinedStatisticWarning",
    "pass_at_k",
    "pass_hat_k",
    "two_proportion_test",
    "wilson_interval",
]


# The two-sided 95% normal quantile, for intervals built from a standard error.
Z_95 = NormalDist().inv_cdf(0.975)


def _check_counts(n: int, c: int) -> None:
    if (
        isinstance(n, bool)
        or isinstance(c, bool)
        or not isinstance(n, int)
        or not isinstance(c, int)
    ):
        raise StatisticsInputError(f"n and c must be whole numbers, got n={n!r}, c={c!r}")
    if n < 0 or c < 0 or c > n:
        raise StatisticsInputError(f"need 0 ≤ c ≤ n, got n={n}, c={c}")


def _check_k(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise StatisticsInputError(f"k must be a whole number ≥ 1, got {k!r}")


def _ratio_of_combinations(top: int, bottom: int, k: int) -> float:
    """C(top, k) / C(bottom, k) for top ≤ bottom, as a product (no huge integers)."""
    if top < k:
        return 0.0
    ratio = 1.0
    for i in range(k):
        ratio *= (top - i) / (bottom - i)
    return ratio


def pass_at_k(n: int, c: int, k: int, *, replace_undefined_by: ReplaceUndefined = "warn") -> float:
    """Probability that at least one of k trials passes: 1 - C(n-c, k) / C(n, k).

    The unbiased estimator of Chen et al. (2021) from ``n`` trials with ``c`` passes.
    Edges: ``c = 0`` gives 0, ``n - c < k`` gives 1, ``n = 0`` or ``k > n`` is nan (warned),
    or ``replace_undefined_by`` (not warned) when given.

    >>> round(pass_at_k(10, 3, 1), 4)
    0.3
    >>> round(pass_at_k(10, 3, 5), 4)
    0.9167
    """
    _check_counts(n, c)
    _check_k(k)
    check_replacement(replace_undefined_by)
    if n == 0:
        return undefined("pass@k is undefined with no trials (n = 0)", replace_undefined_by)
    if k > n:
        return undefined(f"pass@{k} is undefined from {n} trials (k > n)", replace_undefined_by)
    return 1.0 - _ratio_of_combinations(n - c, n, k)


def pass_hat_k(n: int, c: int, k: int, *, replace_undefined_by: ReplaceUndefined = "warn") -> float:
    """Probability that all of k trials pass: C(c, k) / C(n, k) (pass^k, τ-bench).

    Edges: ``c < k`` gives 0, ``c = n`` gives 1, ``n = 0`` or ``k > n`` is nan (warned), or
    ``replace_undefined_by`` (not warned) when given.

    >>> round(pass_hat_k(10, 7, 2), 4)
    0.4667
    """
    _check_counts(n, c)
    _check_k(k)
    check_replacement(replace_undefined_by)
    if n == 0:
        return undefined("pass^k is undefined with no trials (n = 0)", replace_undefined_by)
    if k > n:
        return undefined(f"pass^{k} is undefined from {n} trials (k > n)", replace_undefined_by)
    return _ratio_of_combinations(c, n, k)


def wilson_interval(
    successes: int,
    n: int,
    *,
    confidence: float = 0.95,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> tuple[float, float]:
    """The Wilson score interval for a proportion of ``successes`` out of ``n``.

    Unlike the normal approximation it stays inside [0, 1] and is honest at 0 and n
    successes. ``n = 0`` gives ``(nan, nan)`` (warned), or both bounds
    ``replace_undefined_by`` (not warned) when given.

    >>> low, high = wilson_interval(15, 20)
    >>> round(low, 4), round(high, 4)
    (0.5313, 0.8881)
    """
    _check_counts(n, successes)
    z = z_value(confidence)
    check_replacement(replace_undefined_by)
    if n == 0:
        bound = undefined(
            "a proportion has no interval with no trials (n = 0)", replace_undefined_by
        )
        return bound, bound
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # At 0 and n successes the bound is exactly 0 or 1; rounding must not move it.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class TwoProportionTest:
    """A pooled two-proportion z-test of p1 = successes_1 / n_1 against p2.

    ``z`` is (p1 - p2) / pooled standard error. ``p_value`` is two-sided;
    ``p_value_smaller`` tests p1 < p2 and ``p_value_larger`` tests p1 > p2.
    """

    p1: float
    p2: float
    z: float
    p_value: float
    p_value_smaller: float
    p_value_larger: float


def two_proportion_test(
    successes_1: int,
    n_1: int,
    successes_2: int,
    n_2: int,
    *,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> TwoProportionTest:
    """Pooled z-test for a difference between two proportions.

    When both samples are all passes or all failures the pooled variance is 0 and the
    proportions are equal: ``z = 0``, two-sided p = 1, one-sided p = 0.5. An empty sample
    gives nan throughout (warned), or ``replace_undefined_by`` throughout (not warned) when
    given.

    >>> result = two_proportion_test(45, 50, 30, 50)
    >>> round(result.z, 3), round(result.p_value, 5)
    (3.464, 0.00053)
    """
    _check_counts(n_1, successes_1)
    _check_counts(n_2, successes_2)
    check_replacement(replace_undefined_by)
    if n_1 == 0 or n_2 == 0:
        value = undefined(
            "a two-proportion test needs trials in both samples", replace_undefined_by
        )
        return TwoProportionTest(value, value, value, value, value, value)
    p1, p2 = successes_1 / n_1, successes_2 / n_2
    pooled = (successes_1 + successes_2) / (n_1 + n_2)
    variance = pooled * (1 - pooled) * (1 / n_1 + 1 / n_2)
    z = 0.0 if variance == 0 else (p1 - p2) / math.sqrt(variance)
    normal = NormalDist()
    smaller = normal.cdf(z)
    larger = 1 - smaller
    return TwoProportionTest(
        p1=p1,
        p2=p2,
        z=z,
        p_value=min(1.0, 2 * min(smaller, larger)),
        p_value_smaller=smaller,
        p_value_larger=larger,
    )
