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
from judgekit.stats.bounded import BoundedRate, clip_rate_interval, outside_unit_interval

__all__ = ["ppi_mean_interval", "ppi_rate_interval"]


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

    The interval is not bounded: for a rate (0/1 labels) use :func:`ppi_rate_interval`,
    which keeps it in [0, 1].

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


def _zeros_and_ones(name: str, values: Sequence[float | bool]) -> list[float]:
    numbers = _numbers(name, values)
    if not np.isin(numbers, (0.0, 1.0)).all():
        raise StatisticsInputError(f"{name} must be 0 or 1 (or booleans) for a rate")
    return [float(value) for value in numbers]


def ppi_rate_interval(
    human: Sequence[float | bool],
    judge_on_labelled: Sequence[float | bool],
    judge_on_unlabelled: Sequence[float | bool],
    *,
    confidence: float = 0.95,
    tuned: bool = False,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> BoundedRate:
    """The human pass rate (labels and verdicts 0 or 1) by :func:`ppi_mean_interval`, with
    the estimate and both bounds clipped to [0, 1] and ``clipped`` saying when one was.

    PPI adds the judge's mean error on the labelled items to its pass rate on the others, so
    with few labels the estimate or a bound can leave [0, 1]. An interval wholly outside
    [0, 1] (the labelled errors do not fit the other verdicts at all) gives nan (warned), or
    ``replace_undefined_by`` (not warned), as fewer than two items of either kind do.

    >>> rate = ppi_rate_interval([1, 0, 1, 1], [1, 0, 0, 1], [1, 1, 0, 1, 0, 1])
    >>> round(rate.estimate, 4), round(rate.low, 4), rate.high, rate.clipped
    (0.9167, 0.2757, 1.0, True)
    """
    y = _zeros_and_ones("human", human)
    f_unlabelled = _zeros_and_ones("judge_on_unlabelled", judge_on_unlabelled)
    estimate, low, high = ppi_mean_interval(
        y,
        _zeros_and_ones("judge_on_labelled", judge_on_labelled),
        f_unlabelled,
        confidence=confidence,
        tuned=tuned,
        replace_undefined_by=replace_undefined_by,
    )
    if len(y) < 2 or len(f_unlabelled) < 2:  # undefined: ppi_mean_interval's value stands
        return BoundedRate(estimate, low, high, clipped=False)
    if outside_unit_interval(low, high):
        value = undefined(
            "the prediction-powered interval lies wholly outside [0, 1]: the judge's errors "
            "on the labelled items do not fit its verdicts on the others",
            replace_undefined_by,
        )
        return BoundedRate(value, value, value, clipped=False)
    return clip_rate_interval(estimate, low, high)
