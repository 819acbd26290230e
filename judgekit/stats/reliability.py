"""Whether a confidence means what it says: the reliability curve, the expected calibration
error (ECE) and the Brier score of probabilities that an outcome happens, with bootstrap
percentile intervals.

``y_true[i]`` is whether the outcome happened (for a judge: its verdict agreed with the
label) and ``y_prob[i]`` the probability given to it (the judge's confidence). Both follow
scikit-learn's argument order (``calibration_curve(y_true, y_prob)``,
``brier_score_loss(y_true, y_proba)``).

**Bins.** ``n_bins`` equal-width bins over [0, 1] (10 by default), with scikit-learn's
``calibration_curve(strategy="uniform")`` edges and convention exactly: the edges are
``numpy.linspace(0, 1, n_bins + 1)`` and a value goes to the bin ``searchsorted`` of the
inner edges gives it, so bin ``i`` holds the values in (edge ``i``, edge ``i + 1``] and the
first bin holds 0 as well (with 10 bins, 0.1 is in the first bin and 0.5 in the fifth).

**ECE** is Σ_b (n_b / n) · |accuracy_b − mean confidence_b| over the bins that hold values:
the gap between the curve and the diagonal, weighted by how many values each bin holds.
0 is perfectly calibrated, 1 the worst. **Brier** is the mean of (y_prob − y_true)².

**Intervals** are percentile bootstrap intervals: ``n_resamples`` (2000 by default)
resamples of the n pairs with replacement, drawn by ``numpy.random.default_rng(seed)``
(``seed`` 0 by default), the ECE and Brier score of each, and their
(1 − confidence)/2 and 1 − (1 − confidence)/2 quantiles, as
:func:`judgekit.stats.kappa_interval` does. The same input gives the same interval.

Impossible input raises :class:`StatisticsInputError`: no pairs, lengths that differ, a
probability outside [0, 1] or NaN, an outcome that is not 0/1 or a bool, ``n_bins < 1``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from judgekit.stats._contract import StatisticsInputError, check_same_length

__all__ = [
    "DEFAULT_BINS",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "CalibrationErrors",
    "ReliabilityBin",
    "bin_edges",
    "bin_indices",
    "brier_score",
    "calibration_errors",
    "expected_calibration_error",
    "reliability_curve",
]

DEFAULT_BINS = 10
DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0
_CHUNK_CELLS = 1 << 22  # resampled indices held at once (32 MiB of int64)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ReliabilityBin:
    """One bin of the curve: its edges, how many values it holds, their mean probability
    and the share of them whose outcome happened (None for an empty bin)."""

    lower: float
    upper: float
    count: int
    mean_confidence: float | None
    accuracy: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "lower": self.lower,
            "upper": self.upper,
            "count": self.count,
            "mean_confidence": self.mean_confidence,
            "accuracy": self.accuracy,
        }


@dataclass(frozen=True)
class CalibrationErrors:
    """ECE and Brier score with their bootstrap intervals, and the curve they come from."""

    n: int
    ece: float
    ece_ci: tuple[float, float]
    brier: float
    brier_ci: tuple[float, float]
    bins: list[ReliabilityBin]  # every bin, empty ones included
    confidence: float
    n_resamples: int
    seed: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "ece": self.ece,
            "ece_ci": list(self.ece_ci),
            "brier": self.brier,
            "brier_ci": list(self.brier_ci),
            "bins": [b.as_dict() for b in self.bins],
        }


def _checked(y_true: Sequence[Any], y_prob: Sequence[Any]) -> tuple[FloatArray, FloatArray]:
    """The outcomes (0.0 or 1.0) and probabilities as arrays, or why they cannot be."""
    outcomes, probs = list(y_true), list(y_prob)
    check_same_length("y_true", outcomes, "y_prob", probs)
    if not outcomes:
        raise StatisticsInputError("no pairs: y_true and y_prob are empty")
    for value in outcomes:
        if not isinstance(value, numbers.Real | np.bool_) or value not in (0, 1):
            raise StatisticsInputError(f"y_true must hold 0/1 or booleans, got {value!r}")
    for value in probs:
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
            raise StatisticsInputError(f"y_prob must hold numbers, got {value!r}")
        if math.isnan(float(value)) or not 0 <= float(value) <= 1:
            raise StatisticsInputError(f"y_prob must lie in [0, 1], got {value!r}")
    return np.asarray(outcomes, dtype=float), np.asarray(probs, dtype=float)


def _check_bins(n_bins: int) -> None:
    if isinstance(n_bins, bool) or not isinstance(n_bins, int) or n_bins < 1:
        raise StatisticsInputError(f"n_bins must be a whole number ≥ 1, got {n_bins!r}")


def bin_edges(n_bins: int = DEFAULT_BINS) -> FloatArray:
    """The ``n_bins + 1`` edges, as scikit-learn's uniform ``calibration_curve`` has them."""
    _check_bins(n_bins)
    return np.linspace(0.0, 1.0, n_bins + 1)


def bin_indices(y_prob: FloatArray, n_bins: int = DEFAULT_BINS) -> IntArray:
    """The bin of each probability (see the module: (lower, upper], the first with 0)."""
    return np.searchsorted(bin_edges(n_bins)[1:-1], y_prob).astype(np.int64)


def reliability_curve(
    y_true: Sequence[Any], y_prob: Sequence[Any], *, n_bins: int = DEFAULT_BINS
) -> list[ReliabilityBin]:
    """Every bin's edges, count, mean probability and observed rate; the non-empty bins'
    rates and means are scikit-learn's ``calibration_curve(y_true, y_prob, n_bins=n_bins)``.

    >>> [(b.count, b.accuracy) for b in reliability_curve([1, 0, 1], [0.9, 0.95, 0.1], n_bins=2)]
    [(1, 1.0), (2, 0.5)]
    """
    outcomes, probs = _checked(y_true, y_prob)
    edges = bin_edges(n_bins)
    ids = bin_indices(probs, n_bins)
    counts = np.bincount(ids, minlength=n_bins)
    sums = np.bincount(ids, weights=probs, minlength=n_bins)
    hits = np.bincount(ids, weights=outcomes, minlength=n_bins)
    return [
        ReliabilityBin(
            lower=float(edges[b]),
            upper=float(edges[b + 1]),
            count=int(counts[b]),
            mean_confidence=float(sums[b] / counts[b]) if counts[b] else None,
            accuracy=float(hits[b] / counts[b]) if counts[b] else None,
        )
        for b in range(n_bins)
    ]


def expected_calibration_error(
    y_true: Sequence[Any], y_prob: Sequence[Any], *, n_bins: int = DEFAULT_BINS
) -> float:
    """Σ_b (n_b / n) · |accuracy_b − mean confidence_b| over the equal-width bins.

    >>> round(expected_calibration_error([1, 0, 1, 1], [0.9, 0.9, 0.6, 0.7], n_bins=5), 6)
    0.375
    """
    return _curve_ece(reliability_curve(y_true, y_prob, n_bins=n_bins))


def _curve_ece(bins: Sequence[ReliabilityBin]) -> float:
    """The ECE of a curve, summed exactly over its non-empty bins."""
    n = sum(b.count for b in bins)
    return math.fsum(
        b.count / n * abs(b.accuracy - b.mean_confidence)
        for b in bins
        if b.accuracy is not None and b.mean_confidence is not None
    )


def brier_score(y_true: Sequence[Any], y_prob: Sequence[Any]) -> float:
    """The mean squared gap between probability and outcome (scikit-learn's
    ``brier_score_loss``).

    >>> brier_score([1, 0], [0.8, 0.4])
    0.1
    """
    outcomes, probs = _checked(y_true, y_prob)
    return float(np.mean((probs - outcomes) ** 2))


def _eces(ids: IntArray, gaps: FloatArray, n_bins: int, rows: IntArray) -> FloatArray:
    """The ECE of each row of resampled positions: Σ_b |Σ_{i in b} (y_i − p_i)| / n, the
    weighted gap of the module (equal to it but for rounding)."""
    r, n = rows.shape
    flat = (ids[rows] + (np.arange(r) * n_bins)[:, None]).ravel()
    per_bin = np.bincount(flat, weights=gaps[rows].ravel(), minlength=r * n_bins)
    result: FloatArray = np.abs(per_bin.reshape(r, n_bins)).sum(axis=1) / n
    return result


def calibration_errors(
    y_true: Sequence[Any],
    y_prob: Sequence[Any],
    *,
    n_bins: int = DEFAULT_BINS,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> CalibrationErrors:
    """ECE and Brier score with their bootstrap percentile intervals (see the module), and
    the reliability curve.

    >>> errors = calibration_errors([1, 1, 0, 0], [0.9, 0.8, 0.7, 0.2], n_bins=2)
    >>> round(errors.ece, 6), round(errors.brier, 6), [b.count for b in errors.bins]
    (0.15, 0.145, [1, 3])
    """
    if not 0 < confidence < 1:
        raise StatisticsInputError(f"confidence must be between 0 and 1, got {confidence!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise StatisticsInputError(f"n_resamples must be a whole number ≥ 1, got {n_resamples!r}")
    outcomes, probs = _checked(y_true, y_prob)
    ids = bin_indices(probs, n_bins)
    gaps = outcomes - probs
    squares = gaps**2
    n = len(probs)
    rng = np.random.default_rng(seed)
    eces = np.empty(n_resamples)
    briers = np.empty(n_resamples)
    rows = max(1, min(n_resamples, _CHUNK_CELLS // n))
    for start in range(0, n_resamples, rows):
        stop = min(n_resamples, start + rows)
        index = rng.integers(0, n, size=(stop - start, n))
        eces[start:stop] = _eces(ids, gaps, n_bins, index)
        briers[start:stop] = squares[index].mean(axis=1)
    tail = (1.0 - confidence) / 2
    quantiles = [tail, 1.0 - tail]
    ece_low, ece_high = (float(q) for q in np.quantile(eces, quantiles))
    brier_low, brier_high = (float(q) for q in np.quantile(briers, quantiles))
    bins = reliability_curve(outcomes.tolist(), probs.tolist(), n_bins=n_bins)
    return CalibrationErrors(
        n=n,
        ece=_curve_ece(bins),
        ece_ci=(max(0.0, ece_low), min(1.0, ece_high)),
        brier=float(np.mean(squares)),
        brier_ci=(max(0.0, brier_low), min(1.0, brier_high)),
        bins=bins,
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
    )
