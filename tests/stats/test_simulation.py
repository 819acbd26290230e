"""Known truth: a simulated judge with set sensitivity and specificity on simulated human labels
with set prevalence. The seeds are fixed, so these figures are deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from judgekit.stats import (
    cohen_kappa_score,
    judge_error_rates,
    kappa_interval,
    ppi_mean_interval,
    rogan_gladen,
)

PREVALENCE, SENSITIVITY, SPECIFICITY = 0.2, 0.8, 0.85
SEEDS = range(400)
N = 200


def population_kappa(prevalence: float, sensitivity: float, specificity: float) -> float:
    p_pass_pass = prevalence * sensitivity
    p_fail_fail = (1 - prevalence) * specificity
    judge_pass = prevalence * sensitivity + (1 - prevalence) * (1 - specificity)
    p_o = p_pass_pass + p_fail_fail
    p_e = prevalence * judge_pass + (1 - prevalence) * (1 - judge_pass)
    return (p_o - p_e) / (1 - p_e)


def simulate(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    human = rng.random(n) < PREVALENCE
    judge = np.where(human, rng.random(n) < SENSITIVITY, rng.random(n) >= SPECIFICITY)
    return human, judge


def test_population_kappa_by_hand() -> None:
    # p_o = 0.16 + 0.68 = 0.84; judge pass rate 0.28; p_e = 0.2·0.28 + 0.8·0.72 = 0.632
    assert population_kappa(0.2, 0.8, 0.85) == pytest.approx(0.208 / 0.368)


def test_analytic_kappa_interval_covers_the_population_kappa() -> None:
    truth = population_kappa(PREVALENCE, SENSITIVITY, SPECIFICITY)
    covered = 0
    for seed in SEEDS:
        human, judge = simulate(np.random.default_rng(seed), N)
        low, high = kappa_interval(human.tolist(), judge.tolist())
        covered += low <= truth <= high
    coverage = covered / len(SEEDS)
    assert 0.93 <= coverage <= 0.97, coverage


def test_bootstrap_kappa_interval_coverage() -> None:
    truth = population_kappa(PREVALENCE, SENSITIVITY, SPECIFICITY)
    seeds = range(200)
    covered = 0
    for seed in seeds:
        human, judge = simulate(np.random.default_rng(seed), N)
        low, high = kappa_interval(
            human.tolist(), judge.tolist(), method="bootstrap", n_resamples=500
        )
        covered += low <= truth <= high
    assert 0.91 <= covered / len(seeds) <= 0.98


def test_rogan_gladen_removes_the_bias_of_the_judged_pass_rate() -> None:
    raw_errors, corrected_errors = [], []
    for seed in SEEDS:
        rng = np.random.default_rng(10_000 + seed)
        human, judge = simulate(rng, N)  # the labelled calibration set
        rates = judge_error_rates(human.tolist(), judge.tolist(), pos_label=True)
        _, judged = simulate(rng, 5000)  # the judge alone on a large unlabelled set
        observed = float(judged.mean())
        raw_errors.append(observed - PREVALENCE)
        corrected = rogan_gladen(observed, rates.sensitivity.estimate, rates.specificity.estimate)
        corrected_errors.append(corrected - PREVALENCE)
    assert abs(np.mean(raw_errors)) > 0.05  # 0.28 - 0.2 = 0.08 in expectation
    assert abs(np.mean(corrected_errors)) < 0.01


@pytest.mark.parametrize("tuned", [False, True])
def test_ppi_interval_coverage(tuned: bool) -> None:
    covered, widths = 0, []
    for seed in SEEDS:
        rng = np.random.default_rng(20_000 + seed)
        human, judge_labelled = simulate(rng, N)
        _, judge_unlabelled = simulate(rng, 2000)
        _, low, high = ppi_mean_interval(
            human.astype(float).tolist(),
            judge_labelled.astype(float).tolist(),
            judge_unlabelled.astype(float).tolist(),
            tuned=tuned,
        )
        covered += low <= PREVALENCE <= high
        widths.append(high - low)
    assert 0.92 <= covered / len(SEEDS) <= 0.98
    # PPI++ is never (asymptotically) wider than the human-only interval 2·1.96·√(p(1-p)/n);
    # plain PPI with this middling judge (κ ≈ 0.57) is wider: the reason to tune.
    classical = 2 * 1.959963984540054 * np.sqrt(PREVALENCE * (1 - PREVALENCE) / N)
    assert bool(np.mean(widths) < classical) == tuned


def test_kappa_estimate_is_consistent() -> None:
    human, judge = simulate(np.random.default_rng(99), 200_000)
    assert cohen_kappa_score(human.tolist(), judge.tolist()) == pytest.approx(
        population_kappa(PREVALENCE, SENSITIVITY, SPECIFICITY), abs=0.01
    )
