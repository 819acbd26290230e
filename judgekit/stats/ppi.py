"""Prediction-powered inference: a mean from a few human labels and many judge verdicts."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from judgekit.stats._contract import (
    ReplaceUndefined,
    StatisticsInputError,
    check_replacement,
    check_same_length,
    undefined,
    z_value,
)
from judgekit.stats._validation import FloatArray

__all__ = ["ppi_mean_interval"]


def _numbers(name: str, values: Sequence[float | bool]) -> FloatArray:
    try:
        array = np.asarray(list(values), dtype=float)
    except (TypeError, ValueError):
        raise StatisticsInputError(f"{name} must be numbers (or booleans)") from None
    if array.ndim != 1:
        raise StatisticsInputError(f"{name} must be a flat sequence of numbers")
    if not np.isfinite(array).all():
        raise StatisticsInputError(f"{name} has a value that is not finite")
    return array


def ppi_mean_interval(
    human: Sequence[float | bool],
    judge_on_labelled: Sequence[float | bool],
    judge_on_unlabelled: Sequence[float | bool],
    *,
    confidence: float = 0.95,
    tuned: bool = False,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> tuple[float, float, float]:
    """The mean of the human label, estimated with prediction-powered inference.

    With n human labels Y, the judge's verdicts f on the same n items and on N more items::

        θ = λ · mean(f_unlabelled) + mean(Y - λ · f_labelled)
        se² = λ² · var(f_unlabelled) / N + var(Y - λ · f_labelled) / n

    and the interval θ ± z · se (Angelopoulos et al. 2023). ``tuned=False`` is plain PPI
    (λ = 1); ``tuned=True`` is PPI++ (Angelopoulos, Duchi & Zrnic 2023), with the λ that
    minimises the variance, cov(Y, f) / ((1 + n/N) · var(f)), var(f) taken over all n + N
    verdicts (not clipped; 0 if the judge's verdicts never vary). Returns
    ``(estimate, low, high)``; fewer than two labelled or unlabelled items give nan (warned),
    or ``replace_undefined_by`` for all three (not warned) when given.

    >>> estimate, low, high = ppi_mean_interval([1, 0, 1, 1], [1, 0, 0, 1], [1, 1, 0, 1, 0, 1])
    >>> round(estimate, 4), round(low, 4), round(high, 4)
    (0.9167, 0.2757, 1.5576)
    """
    z = z_value(confidence)
    y = _numbers("human", human)
    f_labelled = _numbers("judge_on_labelled", judge_on_labelled)
    f_unlabelled = _numbers("judge_on_unlabelled", judge_on_unlabelled)
    check_same_length("human", y, "judge_on_labelled", f_labelled)  # type: ignore[arg-type]
    if y.size == 0:
        raise StatisticsInputError("no pairs: human and judge_on_labelled are empty")
    if f_unlabelled.size == 0:
        raise StatisticsInputError("judge_on_unlabelled is empty")
    check_replacement(replace_undefined_by)
    n, big_n = y.size, f_unlabelled.size
    if n < 2 or big_n < 2:
        value = undefined(
            "PPI needs at least two labelled and two unlabelled items for a variance",
            replace_undefined_by,
        )
        return value, value, value
    lam = 1.0
    if tuned:
        var_f = float(np.var(np.concatenate([f_labelled, f_unlabelled]), ddof=1))
        cov = float(np.cov(y, f_labelled, ddof=1)[0, 1])
        lam = 0.0 if var_f == 0.0 else cov / ((1.0 + n / big_n) * var_f)
    rectifier = y - lam * f_labelled
    estimate = lam * float(f_unlabelled.mean()) + float(rectifier.mean())
    variance = (
        lam**2 * float(np.var(f_unlabelled, ddof=1)) / big_n + float(np.var(rectifier, ddof=1)) / n
    )
    half = z * math.sqrt(variance)
    return estimate, estimate - half, estimate + half
