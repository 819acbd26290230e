"""McNemar's test: do two graders (or judges) differ in accuracy on the same items?"""

from __future__ import annotations

import math
from collections.abc import Sequence

from judgekit.stats._contract import StatisticsInputError, check_same_length

__all__ = ["mcnemar_test"]


def _binomial_tail(k: int, n: int) -> float:
    """P(X ≤ k) for X ~ Binomial(n, 1/2), k ≤ n / 2: summed down from the largest term."""
    log_term = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2)
    term = math.exp(log_term)
    total = 0.0
    i = k
    while i >= 0:
        total += term
        if term < total * 1e-17:
            break
        term *= i / (n - i + 1)  # P(i - 1) from P(i)
        i -= 1
    return total


def mcnemar_test(
    a_correct: Sequence[bool], b_correct: Sequence[bool], *, exact: bool = True
) -> float:
    """Two-sided p-value for "a and b are equally accurate" on the same items.

    Only the discordant items count: b01 (a right, b wrong) and b10 (a wrong, b right).
    ``exact=True``: the binomial test of b01 against b01 + b10 at 1/2. ``exact=False``:
    the chi-square (1 df) of (|b01 - b10| - 1)² / (b01 + b10), continuity-corrected, with
    the correction not taken below 0 (so equal counts give p = 1). No discordant items: p = 1.

    >>> round(mcnemar_test([True] * 10 + [False] * 2, [False] * 8 + [True] * 4), 4)
    0.1094
    """
    a, b = list(a_correct), list(b_correct)
    check_same_length("a_correct", a, "b_correct", b)
    if not a:
        raise StatisticsInputError("no pairs: a_correct and b_correct are empty")
    for name, values in (("a_correct", a), ("b_correct", b)):
        bad = [v for v in values if v not in (True, False)]
        if bad:
            raise StatisticsInputError(f"{name} must be booleans, got {bad[0]!r}")
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    discordant = only_a + only_b
    if discordant == 0:
        return 1.0
    if exact:
        return min(1.0, 2.0 * _binomial_tail(min(only_a, only_b), discordant))
    statistic = max(0, abs(only_a - only_b) - 1) ** 2 / discordant
    return math.erfc(math.sqrt(statistic / 2.0))
