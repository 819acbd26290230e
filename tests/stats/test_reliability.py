"""ECE, Brier score and the reliability curve against scikit-learn's calibration_curve
(uniform bins) and brier_score_loss, on simulated judges of known miscalibration, and at
the edges (one bin, every verdict right, confidences of exactly 0 and 1, NaN)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss

from judgekit.stats import (
    StatisticsInputError,
    brier_score,
    calibration_errors,
    expected_calibration_error,
    reliability_curve,
)

# Every bin edge of 10 bins, and 0 and 1: where a convention shows.
EDGES = [round(i / 10, 1) for i in range(11)]


def judged(n: int, seed: int, *, edges: bool = True) -> tuple[list[int], list[float]]:
    """``n`` confidences (a third of them on bin edges) and outcomes drawn as right with
    probability confidence²."""
    rng = random.Random(seed)
    probs = [rng.choice(EDGES) if edges and i % 3 == 0 else rng.random() for i in range(n)]
    return [int(rng.random() < p * p) for p in probs], probs


def counts_by_hand(probs: list[float], n_bins: int) -> list[int]:
    """Bin counts with scikit-learn's convention written out: edges linspace(0, 1, n + 1),
    bin i holding (edge i, edge i + 1], the first holding 0 too."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    counts = [0] * n_bins
    for p in probs:
        for i in range(n_bins):
            if (edges[i] < p or (i == 0 and p == 0)) and p <= edges[i + 1]:
                counts[i] += 1
                break
    return counts


@pytest.mark.parametrize("n_bins", [1, 2, 3, 5, 10, 15])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_curve_and_ece_are_scikit_learns(n_bins: int, seed: int) -> None:
    y, p = judged(300, seed)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy="uniform")
    curve = reliability_curve(y, p, n_bins=n_bins)
    filled = [b for b in curve if b.count]
    assert [b.accuracy for b in filled] == prob_true.tolist()
    assert [b.mean_confidence for b in filled] == prob_pred.tolist()
    assert [b.count for b in curve] == counts_by_hand(p, n_bins)
    counts = [b.count for b in filled]
    from_sklearn = math.fsum(
        c / len(p) * abs(t - q) for c, t, q in zip(counts, prob_true, prob_pred, strict=True)
    )
    assert expected_calibration_error(y, p, n_bins=n_bins) == from_sklearn
    # brier_score_loss sums both columns and halves: equal but for the last bit
    assert brier_score(y, p) == pytest.approx(brier_score_loss(y, p), rel=1e-12, abs=0)


def test_edges_fall_as_scikit_learn_puts_them() -> None:
    curve = reliability_curve([1] * 11, EDGES, n_bins=10)
    # 0 and 0.1 in the first bin, each edge after in the bin it closes
    assert [b.count for b in curve] == [2, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    assert [(b.lower, b.upper) for b in curve][:2] == [(0.0, 0.1), (0.1, 0.2)]
    prob_true, prob_pred = calibration_curve([1] * 10 + [0], EDGES, n_bins=10)
    assert prob_pred.tolist() == [b.mean_confidence for b in curve]
    assert prob_true.tolist() == [1.0] * 9 + [0.0]  # 1.0 alone in the last bin
    assert prob_pred.tolist()[0] == 0.05


def test_one_bin_is_the_gap_of_the_means() -> None:
    y, p = [1, 0, 1, 1], [0.9, 0.2, 0.6, 0.7]
    assert expected_calibration_error(y, p, n_bins=1) == pytest.approx(abs(0.75 - 0.6), abs=1e-15)
    (only,) = reliability_curve(y, p, n_bins=1)
    assert (only.lower, only.upper, only.count) == (0.0, 1.0, 4)


def test_every_verdict_right_and_sure_is_calibrated() -> None:
    errors = calibration_errors([True] * 20, [1.0] * 20)
    assert (errors.ece, errors.ece_ci, errors.brier, errors.brier_ci) == (
        0.0,
        (0.0, 0.0),
        0.0,
        (0.0, 0.0),
    )
    assert [b.count for b in errors.bins] == [0] * 9 + [20]
    # every verdict right at confidence 0.8: 0.2 underconfident in every resample
    errors = calibration_errors([1] * 20, [0.8] * 20)
    assert errors.ece == pytest.approx(0.2, abs=1e-15)
    assert errors.ece_ci == pytest.approx((0.2, 0.2), abs=1e-15)
    assert errors.brier == pytest.approx(0.04, abs=1e-15)


def test_confidences_of_zero_and_one() -> None:
    y, p = [0, 0, 1, 1, 0], [0.0, 0.0, 1.0, 1.0, 1.0]
    curve = reliability_curve(y, p)
    assert (curve[0].count, curve[0].accuracy, curve[0].mean_confidence) == (2, 0.0, 0.0)
    assert (curve[9].count, curve[9].accuracy, curve[9].mean_confidence) == (3, 2 / 3, 1.0)
    assert expected_calibration_error(y, p) == pytest.approx(3 / 5 * (1 / 3), abs=1e-15)
    assert brier_score(y, p) == 0.2 == brier_score_loss(y, p)


@pytest.mark.parametrize(
    ("y", "p", "message"),
    [
        ([1, 0], [0.5, math.nan], "y_prob must lie in [0, 1], got nan"),
        ([1, 0], [0.5, 1.5], "y_prob must lie in [0, 1], got 1.5"),
        ([1, 0], [0.5, -0.1], "y_prob must lie in [0, 1], got -0.1"),
        ([1, 0], [0.5, True], "y_prob must hold numbers, got True"),
        ([1, 0], [0.5, "0.5"], "y_prob must hold numbers, got '0.5'"),
        ([1, 2], [0.5, 0.5], "y_true must hold 0/1 or booleans, got 2"),
        ([1, math.nan], [0.5, 0.5], "y_true must hold 0/1 or booleans, got nan"),
        ([1], [0.5, 0.5], "y_true and y_prob must have the same length, got 1 and 2"),
        ([], [], "no pairs: y_true and y_prob are empty"),
    ],
)
def test_impossible_input_is_refused(y: list[object], p: list[object], message: str) -> None:
    for function in (expected_calibration_error, brier_score, reliability_curve):
        with pytest.raises(StatisticsInputError) as raised:
            function(y, p)
        assert str(raised.value) == message
    with pytest.raises(StatisticsInputError, match=r"^n_bins must be a whole number ≥ 1, got 0$"):
        expected_calibration_error([1], [0.5], n_bins=0)
    with pytest.raises(StatisticsInputError, match=r"^n_resamples must be a whole number"):
        calibration_errors([1], [0.5], n_resamples=0)


def test_bootstrap_is_the_percentile_interval_of_resampled_runs() -> None:
    y, p = judged(60, 4)
    errors = calibration_errors(y, p, n_resamples=300, seed=7, confidence=0.9)
    rng = np.random.default_rng(7)
    index = rng.integers(0, 60, size=(300, 60))
    eces = [expected_calibration_error([y[i] for i in row], [p[i] for i in row]) for row in index]
    briers = [brier_score_loss([y[i] for i in row], [p[i] for i in row]) for row in index]
    assert errors.ece_ci == pytest.approx(tuple(np.quantile(eces, [0.05, 0.95])), abs=1e-12)
    assert errors.brier_ci == pytest.approx(tuple(np.quantile(briers, [0.05, 0.95])), abs=1e-12)
    assert calibration_errors(y, p, n_resamples=300, seed=7, confidence=0.9) == errors
    assert calibration_errors(y, p, n_resamples=300, seed=8, confidence=0.9) != errors


def simulated(n: int, seed: int, low: float, accuracy: object) -> tuple[list[int], list[float]]:
    """Confidences uniform on [low, 1], each verdict right with probability accuracy(c)."""
    rng = np.random.default_rng(seed)
    probs = rng.uniform(low, 1.0, size=n)
    right = rng.random(n) < accuracy(probs)  # type: ignore[operator]
    return right.astype(int).tolist(), probs.tolist()


def test_a_judge_right_with_probability_confidence_squared() -> None:
    """c uniform on [0, 1] and P(right) = c²: c − c² ≥ 0 throughout, so the binned ECE is
    the unbinned ∫(c − c²) = 1/6, and Brier E[c² − 2c³ + c²] = 2/3 − 1/2 = 1/6."""
    y, p = simulated(4000, 11, 0.0, np.square)
    errors = calibration_errors(y, p)
    assert errors.ece_ci[0] <= 1 / 6 <= errors.ece_ci[1]
    assert errors.brier_ci[0] <= 1 / 6 <= errors.brier_ci[1]
    # the check can fail: a calibrated judge's interval is nowhere near 1/6
    y, p = simulated(4000, 11, 0.0, lambda c: c)
    assert calibration_errors(y, p).ece_ci[1] < 1 / 6 / 3


def test_a_judge_overconfident_by_a_tenth() -> None:
    """c uniform on [0.6, 1] and P(right) = c − 0.1: ECE 0.1; Brier −E[c²] + 1.2 E[c] − 0.1
    = −(0.64 + 0.4²/12) + 0.96 − 0.1."""
    brier = -(0.64 + 0.4**2 / 12) + 0.96 - 0.1
    y, p = simulated(3000, 5, 0.6, lambda c: c - 0.1)
    errors = calibration_errors(y, p)
    assert errors.ece_ci[0] <= 0.1 <= errors.ece_ci[1]
    assert errors.brier_ci[0] <= brier <= errors.brier_ci[1]
    assert errors.ece == pytest.approx(0.1, abs=0.02)


def test_the_interval_covers_the_true_ece_as_often_as_it_says() -> None:
    """Over 200 simulated calibration sets of the overconfident judge, the 90% interval
    holds the true ECE (0.1) in about 90% of them."""
    covered = 0
    for seed in range(200):
        y, p = simulated(500, 100 + seed, 0.6, lambda c: c - 0.1)
        low, high = calibration_errors(y, p, confidence=0.9, n_resamples=400, seed=seed).ece_ci
        covered += low <= 0.1 <= high
    assert 0.84 <= covered / 200 <= 0.96
