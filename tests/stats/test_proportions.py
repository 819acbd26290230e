"""Statistics against hand-worked values, statsmodels, and their definitions."""

from __future__ import annotations

import math
from itertools import combinations, pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint, proportions_ztest

from judgekit.stats.proportions import (
    UndefinedStatisticWarning,
    pass_at_k,
    pass_hat_k,
    two_proportion_test,
    wilson_interval,
)


def by_definition(n: int, c: int, k: int, *, every: bool) -> float:
    """The share of k-subsets of n trials (c passing) with one pass (or all passing)."""
    trials = [True] * c + [False] * (n - c)
    subsets = list(combinations(trials, k))
    hits = sum((all(s) if every else any(s)) for s in subsets)
    return hits / len(subsets)


# pass@k and pass^k ----------------------------------------------------------------------


def test_hand_worked_values() -> None:
    # n=5, c=2, k=2: C(3,2)/C(5,2) = 3/10 of pairs have no pass; C(2,2)/C(5,2) = 1/10 all pass
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    # pass@1 and pass^1 are the plain pass rate
    assert pass_at_k(20, 15, 1) == pytest.approx(0.75)
    assert pass_hat_k(20, 15, 1) == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("n", "c", "k"), [(4, 0, 1), (4, 0, 4), (4, 4, 4), (4, 4, 1), (4, 3, 2), (4, 1, 4), (7, 2, 6)]
)
def test_edges_without_warnings(n: int, c: int, k: int) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(by_definition(n, c, k, every=False))
    assert pass_hat_k(n, c, k) == pytest.approx(by_definition(n, c, k, every=True))


def test_c_zero_and_c_n_exactly() -> None:
    assert pass_at_k(10, 0, 3) == 0.0
    assert pass_at_k(10, 10, 3) == 1.0
    assert pass_at_k(10, 8, 3) == 1.0  # fewer than k failures: every k-subset has a pass
    assert pass_hat_k(10, 0, 3) == 0.0
    assert pass_hat_k(10, 2, 3) == 0.0
    assert pass_hat_k(10, 10, 3) == 1.0


@pytest.mark.parametrize("function", [pass_at_k, pass_hat_k])
def test_undefined_is_nan_with_a_warning(function: object) -> None:
    assert callable(function)
    with pytest.warns(UndefinedStatisticWarning, match="no trials"):
        assert math.isnan(function(0, 0, 1))
    with pytest.warns(UndefinedStatisticWarning, match=r"from 3 trials \(k > n\)"):
        assert math.isnan(function(3, 1, 4))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((3, 4, 1), "need 0 ≤ c ≤ n, got n=3, c=4"),
        ((3, -1, 1), "need 0 ≤ c ≤ n, got n=3, c=-1"),
        ((3, 1, 0), "k must be a whole number ≥ 1, got 0"),
        ((3.0, 1, 1), "n and c must be whole numbers, got n=3.0, c=1"),
    ],
)
def test_impossible_inputs_raise(args: tuple[int, int, int], message: str) -> None:
    for function in (pass_at_k, pass_hat_k):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            function(*args)


def test_taubench_published_pass_hat_k() -> None:
    # The τ-bench README's figures for gpt-4o airline: 50 tasks × 4 trials, per-task passes
    # computed from the real runs' rewards (see tests/importers/test_taubench_import.py).
    import json

    from tests.conftest import shared_data_path

    path = shared_data_path("taubench", "gpt-4o-airline.compact.jsonl")
    passes: dict[int, int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        passes[record["task_id"]] = passes.get(record["task_id"], 0) + (record["reward"] == 1.0)
    published = [0.420, 0.273, 0.220, 0.200]
    for k, expected in enumerate(published, start=1):
        mean = sum(pass_hat_k(4, c, k) for c in passes.values()) / len(passes)
        assert round(mean, 3) == expected


@given(n=st.integers(1, 9), data=st.data())
def test_matches_the_definition(n: int, data: st.DataObject) -> None:
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    assert pass_at_k(n, c, k) == pytest.approx(by_definition(n, c, k, every=False))
    assert pass_hat_k(n, c, k) == pytest.approx(by_definition(n, c, k, every=True))


@given(n=st.integers(1, 60), data=st.data())
def test_pass_at_k_grows_and_pass_hat_k_shrinks_with_k(n: int, data: st.DataObject) -> None:
    c = data.draw(st.integers(0, n))
    at = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    hat = [pass_hat_k(n, c, k) for k in range(1, n + 1)]
    assert all(a <= b + 1e-12 for a, b in pairwise(at))
    assert all(a + 1e-12 >= b for a, b in pairwise(hat))
    assert all(h <= a + 1e-12 for h, a in zip(hat, at, strict=True))


def test_large_n_does_not_overflow() -> None:
    assert pass_at_k(100_000, 50_000, 2_000) == 1.0
    assert 0.0 <= pass_hat_k(100_000, 99_990, 2_000) < 1.0


# Wilson ---------------------------------------------------------------------------------


def test_wilson_hand_worked() -> None:
    # 15/20 at 95%: centre (0.75 + 1.96²/40) / (1 + 1.96²/20), the textbook example values
    low, high = wilson_interval(15, 20)
    assert (round(low, 4), round(high, 4)) == (0.5313, 0.8881)


@given(n=st.integers(1, 2000), data=st.data(), confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_wilson_matches_statsmodels(n: int, data: st.DataObject, confidence: float) -> None:
    successes = data.draw(st.integers(0, n))
    expected = proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
    low, high = wilson_interval(successes, n, confidence=confidence)
    assert low == pytest.approx(expected[0], abs=1e-12)
    assert high == pytest.approx(expected[1], abs=1e-12)
    assert 0.0 <= low <= successes / n <= high <= 1.0


def test_wilson_edges() -> None:
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == 1.0
    with pytest.warns(UndefinedStatisticWarning):
        low, high = wilson_interval(0, 0)
    assert math.isnan(low) and math.isnan(high)
    with pytest.raises(ValueError, match=r"confidence must be between 0 and 1, got 1\.5"):
        wilson_interval(1, 2, confidence=1.5)


# Two-proportion test ----------------------------------------------------------------------


def test_two_proportion_hand_worked() -> None:
    # 45/50 vs 30/50: pooled 0.75, se = sqrt(0.75·0.25·(2/50)) = 0.0866, z = 0.3 / 0.0866
    result = two_proportion_test(45, 50, 30, 50)
    assert result.z == pytest.approx(0.3 / math.sqrt(0.75 * 0.25 * 0.04))
    assert (result.p1, result.p2) == (0.9, 0.6)


@given(n1=st.integers(1, 500), n2=st.integers(1, 500), data=st.data())
def test_two_proportion_matches_statsmodels(n1: int, n2: int, data: st.DataObject) -> None:
    s1 = data.draw(st.integers(0, n1))
    s2 = data.draw(st.integers(0, n2))
    result = two_proportion_test(s1, n1, s2, n2)
    if (s1 + s2) in (0, n1 + n2):
        assert (result.z, result.p_value, result.p_value_smaller) == (0.0, 1.0, 0.5)
        return
    for alternative, ours in (
        ("two-sided", result.p_value),
        ("smaller", result.p_value_smaller),
        ("larger", result.p_value_larger),
    ):
        z, p = proportions_ztest([s1, s2], [n1, n2], alternative=alternative)
        assert result.z == pytest.approx(float(z), rel=1e-9, abs=1e-12)
        assert ours == pytest.approx(float(p), rel=1e-6, abs=1e-12)


def test_two_proportion_empty_sample() -> None:
    with pytest.warns(UndefinedStatisticWarning):
        result = two_proportion_test(0, 0, 3, 5)
    assert math.isnan(result.z) and math.isnan(result.p_value)
