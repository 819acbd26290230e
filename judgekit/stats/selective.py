"""Selective judging with a guarantee (Jung, Brahman & Choi, "Trust or Escalate", ICLR 2025):
keep a judge's verdict only when its confidence reaches a threshold chosen so that, on the
verdicts kept, agreement with humans is at least ``1 - alpha`` with probability at least
``1 - delta``.

On n labelled verdicts with confidence c_i and correctness z_i, candidate thresholds are the
distinct confidences, highest first. At each, the kept verdicts are those with c_i ≥ λ and
the null hypothesis "their disagreement rate exceeds alpha" is tested exactly: rejected when
P(Bin(m, alpha) ≤ errors) ≤ delta, i.e. when the one-sided Clopper–Pearson upper
(1 - delta) bound of the disagreement rate is at most alpha. Fixed-sequence testing goes
down the thresholds while the null is rejected and stops at the first that is not; the
threshold chosen is the last rejected one. Each test is at level delta and the sequence
stops at the first failure, so the family-wise error stays at delta with no correction.

Pure Python (log-gamma sums and bisection): the bounds match scipy's ``binomtest`` and
statsmodels' ``proportion_confint(method="beta")``, which judgekit does not depend on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judgekit.stats._contract import StatisticsInputError

__all__ = [
    "CurvePoint",
    "SelectiveThreshold",
    "ThresholdStep",
    "binomial_cdf",
    "binomial_sf",
    "clopper_pearson_upper",
    "coverage_curve",
    "fixed_sequence_threshold",
]

_BISECTIONS = 64  # the interval halves each time: 2**-64 is past double precision


def _check_counts(k: int, n: int) -> None:
    for name, value in (("k", k), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise StatisticsInputError(f"{name} must be a whole number ≥ 0, got {value!r}")
    if k > n:
        raise StatisticsInputError(f"need k ≤ n, got k={k}, n={n}")


def _check_share(name: str, value: float, *, closed: bool) -> None:
    low_ok = value >= 0 if closed else value > 0
    high_ok = value <= 1 if closed else value < 1
    if isinstance(value, bool) or not isinstance(value, int | float) or not (low_ok and high_ok):
        interval = "[0, 1]" if closed else "(0, 1)"
        raise StatisticsInputError(f"{name} must be in {interval}, got {value!r}")


def _log_pmf(i: int, n: int, p: float) -> float:
    log_choose = math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
    return log_choose + i * math.log(p) + (n - i) * math.log1p(-p)


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X ≤ k) for X ~ Binomial(n, p), summed exactly term by term.

    >>> round(binomial_cdf(2, 10, 0.1), 6)
    0.929809
    """
    _check_counts(k, n)
    _check_share("p", p, closed=True)
    if p == 0 or k == n:
        return 1.0
    if p == 1:
        return 0.0
    total = math.fsum(math.exp(_log_pmf(i, n, p)) for i in range(k + 1))
    return min(1.0, total)


def binomial_sf(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p).

    >>> round(binomial_sf(3, 10, 0.1), 6)
    0.070191
    """
    _check_counts(k, n)
    _check_share("p", p, closed=True)
    if k == 0 or p == 1:
        return 1.0
    if p == 0:
        return 0.0
    total = math.fsum(math.exp(_log_pmf(i, n, p)) for i in range(k, n + 1))
    return min(1.0, total)


def clopper_pearson_upper(k: int, n: int, *, delta: float) -> float:
    """The exact one-sided upper (1 - delta) bound of a rate seen k times in n: the p with
    P(Bin(n, p) ≤ k) = delta (1 when k = n; 1 as well when n = 0, nothing being known).

    >>> round(clopper_pearson_upper(0, 10, delta=0.05), 6)
    0.258866
    """
    _check_counts(k, n)
    _check_share("delta", delta, closed=False)
    if k == n:
        return 1.0
    low, high = 0.0, 1.0  # the CDF falls as p rises: bisect for the crossing
    for _ in range(_BISECTIONS):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if binomial_cdf(k, n, middle) > delta:
            low = middle
        else:
            high = middle
    return high


@dataclass(frozen=True)
class ThresholdStep:
    """One candidate threshold: the verdicts it keeps, their errors, and the exact test."""

    threshold: float
    kept: int
    errors: int
    p_value: float  # P(Bin(kept, alpha) ≤ errors): small when the risk is below alpha
    risk_upper: float  # the Clopper–Pearson upper (1 - delta) bound of the disagreement rate
    rejected: bool  # "the risk exceeds alpha" rejected at delta

    def as_dict(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "kept": self.kept,
            "errors": self.errors,
            "p_value": self.p_value,
            "risk_upper": self.risk_upper,
            "rejected": self.rejected,
        }


@dataclass(frozen=True)
class SelectiveThreshold:
    """The threshold fixed-sequence testing chose (None: none keeps the guarantee) and the
    steps tested on the way, highest threshold first."""

    alpha: float
    delta: float
    n: int
    steps: list[ThresholdStep]

    @property
    def chosen(self) -> ThresholdStep | None:
        last: ThresholdStep | None = None
        for step in self.steps:
            if not step.rejected:
                break
            last = step
        return last

    @property
    def threshold(self) -> float | None:
        chosen = self.chosen
        return None if chosen is None else chosen.threshold

    @property
    def coverage(self) -> float:
        """The share of the n verdicts kept (0 when no threshold was chosen)."""
        chosen = self.chosen
        return 0.0 if chosen is None or self.n == 0 else chosen.kept / self.n

    @property
    def agreement_on_kept(self) -> float | None:
        chosen = self.chosen
        return None if chosen is None else 1 - chosen.errors / chosen.kept

    @property
    def guaranteed_agreement(self) -> float | None:
        """1 minus the exact upper bound of the disagreement rate on the kept verdicts (at
        least ``1 - alpha`` whenever a threshold was chosen)."""
        chosen = self.chosen
        return None if chosen is None else 1 - chosen.risk_upper


def _known(
    confidences: Sequence[float | None], correct: Sequence[bool]
) -> list[tuple[float, bool]]:
    """The (confidence, correct) pairs with a known confidence, highest confidence first."""
    if len(confidences) != len(correct):
        raise StatisticsInputError(
            f"confidences and correct differ in length: {len(confidences)} and {len(correct)}"
        )
    known: list[tuple[float, bool]] = []
    for value, right in zip(confidences, correct, strict=True):
        if not isinstance(right, bool):
            raise StatisticsInputError(f"correct must be booleans, got {right!r}")
        if value is None:
            continue
        _check_share("a confidence", value, closed=True)
        known.append((float(value), bool(right)))
    known.sort(key=lambda pair: -pair[0])
    return known


def _cumulative(known: list[tuple[float, bool]]) -> list[tuple[float, int, int]]:
    """(threshold, kept, errors) at each distinct confidence, highest first; ties are kept
    together, since a threshold keeps every verdict at its confidence."""
    rows: list[tuple[float, int, int]] = []
    errors = 0
    for index, (value, right) in enumerate(known):
        errors += not right
        if index + 1 == len(known) or known[index + 1][0] != value:
            rows.append((value, index + 1, errors))
    return rows


def fixed_sequence_threshold(
    confidences: Sequence[float | None],
    correct: Sequence[bool],
    *,
    alpha: float,
    delta: float,
) -> SelectiveThreshold:
    """The threshold of the module docstring on labelled verdicts: ``confidences[i]`` (None:
    unknown, never kept) and ``correct[i]`` (the judge agreed with the humans).

    Every distinct confidence is tested, highest first, and listed in ``steps`` until the
    first non-rejection (included), so the steps show where the sequence stopped.
    """
    _check_share("alpha", alpha, closed=False)
    _check_share("delta", delta, closed=False)
    steps: list[ThresholdStep] = []
    for value, kept, errors in _cumulative(_known(confidences, correct)):
        p_value = binomial_cdf(errors, kept, alpha)
        step = ThresholdStep(
            threshold=value,
            kept=kept,
            errors=errors,
            p_value=p_value,
            risk_upper=clopper_pearson_upper(errors, kept, delta=delta),
            rejected=p_value <= delta,
        )
        steps.append(step)
        if not step.rejected:
            break
    return SelectiveThreshold(alpha=alpha, delta=delta, n=len(confidences), steps=steps)


@dataclass(frozen=True)
class CurvePoint:
    """One threshold on the coverage curve: the share kept and the agreement guaranteed on
    them at delta (1 minus the exact upper bound of their disagreement rate)."""

    threshold: float
    kept: int
    errors: int
    coverage: float
    guaranteed_agreement: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "kept": self.kept,
            "errors": self.errors,
            "coverage": self.coverage,
            "guaranteed_agreement": self.guaranteed_agreement,
        }


def coverage_curve(
    confidences: Sequence[float | None],
    correct: Sequence[bool],
    *,
    delta: float,
    max_points: int = 60,
) -> list[CurvePoint]:
    """Coverage against guaranteed agreement at every distinct confidence, highest first;
    with more than ``max_points`` of them, that many spread evenly over the list (the
    lowest always included). Each point's bound holds for that threshold alone: to choose a
    threshold from the curve, use :func:`fixed_sequence_threshold`."""
    _check_share("delta", delta, closed=False)
    if max_points < 2:
        raise StatisticsInputError(f"max_points must be at least 2, got {max_points!r}")
    rows = _cumulative(_known(confidences, correct))
    if len(rows) > max_points:
        last = len(rows) - 1
        rows = [rows[round(i * last / (max_points - 1))] for i in range(max_points)]
    n = len(confidences)
    return [
        CurvePoint(
            threshold=value,
            kept=kept,
            errors=errors,
            coverage=kept / n,
            guaranteed_agreement=1 - clopper_pearson_upper(errors, kept, delta=delta),
        )
        for value, kept, errors in rows
    ]
