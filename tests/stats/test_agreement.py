"""Agreement, kappa and AC1 against scikit-learn, statsmodels, hand-worked values, properties."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score as sk_kappa
from sklearn.metrics import confusion_matrix
from statsmodels.stats.inter_rater import cohens_kappa

from judgekit.errors import CalibrationError
from judgekit.stats import (
    UndefinedStatisticWarning,
    cohen_kappa_score,
    confusion,
    gwet_ac1_score,
    kappa_interval,
    kappa_sample_size,
    kappa_standard_error,
    percent_agreement,
)
from judgekit.stats._validation import encode_pairs
from judgekit.stats.agreement import (
    _bootstrap_tables,
    _bootstrap_tables_by_index,
    disagreement_weights,
    table_kappas,
)
from tests.stats.conftest import label_pairs

WEIGHTS = [None, "linear", "quadratic"]


def quiet(function, *args, **kwargs):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# Hand-worked values ---------------------------------------------------------------------

# The kappa paradox: 100 items, 95 agreed passes, humans fail 3 the judge passes, the judge
# fails 2 humans pass. Row (human) rates pass 0.97 / fail 0.03, column (judge) 0.98 / 0.02.
PARADOX_HUMAN = ["pass"] * 95 + ["pass"] * 2 + ["fail"] * 3
PARADOX_JUDGE = ["pass"] * 95 + ["fail"] * 2 + ["pass"] * 3


def test_kappa_paradox_exact_values() -> None:
    # p_o = 0.95; p_e = 0.97·0.98 + 0.03·0.02 = 0.9512; κ = -0.0012 / 0.0488 = -3/122
    assert percent_agreement(PARADOX_HUMAN, PARADOX_JUDGE) == pytest.approx(0.95)
    assert cohen_kappa_score(PARADOX_HUMAN, PARADOX_JUDGE) == pytest.approx(
        float(Fraction(-3, 122)), abs=1e-12
    )
    # AC1: π_pass = (0.97 + 0.98)/2 = 0.975, p_e = 2·0.975·0.025 = 0.04875,
    # AC1 = (0.95 - 0.04875) / (1 - 0.04875) = 721/761 ≈ 0.947
    assert gwet_ac1_score(PARADOX_HUMAN, PARADOX_JUDGE) == pytest.approx(
        float(Fraction(721, 761)), abs=1e-12
    )


def test_hand_worked_kappa_and_ac1() -> None:
    # table a/a 1, a/b 1, b/b 2: p_o = 3/4, p_e = (2·1 + 2·3)/16 = 1/2, κ = 1/2
    y1, y2 = ["a", "a", "b", "b"], ["a", "b", "b", "b"]
    assert cohen_kappa_score(y1, y2) == 0.5
    assert gwet_ac1_score(y1, y2) == pytest.approx(9 / 17)
    # three ordered labels, quadratic weights: table rows 1:[1,0,0] 2:[0,0,1] 3:[0,1,1]
    # disagreement Σ w·T = 1 + 1 = 2; expected Σ w·r_i c_j / n = 5.5/4; κ = 1 - 2/(22/16) · ... = 7/11
    assert cohen_kappa_score([1, 2, 3, 3], [1, 3, 3, 2], weights="quadratic") == pytest.approx(
        7 / 11
    )


def test_hand_worked_standard_error() -> None:
    # a/a 5, a/b 1, b/b 4: rows 0.6/0.4, columns 0.5/0.5, p_o = 0.9, p_e = 0.5, κ = 0.8.
    # FCE: Σ p_ij (a_ij - (p_.i + p_j.)(1-κ))² = 0.5·(1 - 1.1·0.2)² + 0.4·(1 - 0.9·0.2)²
    # + 0.1·(0.9·0.2)² = 0.5764; minus (κ - p_e(1-κ))² = 0.49 → var = 0.0864 / (10·0.25)
    y1, y2 = ["a"] * 6 + ["b"] * 4, ["a"] * 5 + ["b"] * 5
    assert kappa_standard_error(y1, y2) == pytest.approx(math.sqrt(0.03456))
    low, high = kappa_interval(y1, y2)
    assert low == pytest.approx(0.8 - 1.959963984540054 * math.sqrt(0.03456))
    assert high == 1.0  # clipped


# Edge cases -----------------------------------------------------------------------------


def test_perfect_agreement() -> None:
    y = ["pass", "fail", "pass", "fail", "fail"]
    assert cohen_kappa_score(y, y) == 1.0
    assert gwet_ac1_score(y, y) == 1.0
    assert percent_agreement(y, y) == 1.0
    for weights in WEIGHTS:
        assert cohen_kappa_score(y, y, weights=weights) == 1.0  # type: ignore[arg-type]
    assert kappa_interval(y, y) == (1.0, 1.0)  # the analytic SE is 0 at perfect agreement
    assert kappa_interval(y, y, method="bootstrap") == (1.0, 1.0)


@pytest.mark.parametrize("labels", [None, ["pass", "fail"]])
def test_one_class_only(labels: list[str] | None) -> None:
    y = ["pass"] * 7
    with pytest.warns(UndefinedStatisticWarning, match="undefined"):
        assert math.isnan(cohen_kappa_score(y, y, labels=labels))
    with pytest.warns(UndefinedStatisticWarning):
        low, high = kappa_interval(y, y, labels=labels)
    assert math.isnan(low) and math.isnan(high)
    with pytest.warns(UndefinedStatisticWarning):
        assert math.isnan(kappa_standard_error(y, y, labels=labels))
    with pytest.warns(UndefinedStatisticWarning):
        kappa_interval(y, y, labels=labels, method="bootstrap")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gwet_ac1_score(y, y, labels=labels) == 1.0
        assert percent_agreement(y, y) == 1.0


def test_single_pair() -> None:
    assert percent_agreement(["a"], ["a"]) == 1.0
    assert percent_agreement(["a"], ["b"]) == 0.0
    with pytest.warns(UndefinedStatisticWarning):
        assert math.isnan(cohen_kappa_score(["a"], ["a"]))
    assert cohen_kappa_score(["a"], ["b"]) == 0.0 == sk_kappa(["a"], ["b"])
    assert gwet_ac1_score(["a"], ["a"]) == 1.0
    assert gwet_ac1_score(["a"], ["b"]) == -1.0  # π = 1/2 each, p_e = 1/2, p_o = 0


FUNCTIONS = [
    percent_agreement,
    cohen_kappa_score,
    kappa_interval,
    kappa_standard_error,
    gwet_ac1_score,
    confusion,
]


@pytest.mark.parametrize("function", FUNCTIONS)
def test_empty_input(function: object) -> None:
    with pytest.raises(ValueError, match="no pairs"):
        function([], [])  # type: ignore[operator]


@pytest.mark.parametrize("function", FUNCTIONS)
def test_unequal_lengths(function: object) -> None:
    with pytest.raises(ValueError, match=r"same length, got 3 and 2") as caught:
        function(["a", "b", "a"], ["a", "b"])  # type: ignore[operator]
    assert isinstance(caught.value, CalibrationError)  # the CLI reports it in one line


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa_score(["a"], ["b"], weights="cubic")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="method"):
        kappa_interval(["a", "b"], ["a", "b"], method="jackknife")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="confidence"):
        kappa_interval(["a", "b"], ["a", "b"], confidence=1.5)
    with pytest.raises(ValueError, match="n_resamples"):
        kappa_interval(["a", "b"], ["a", "b"], method="bootstrap", n_resamples=0)
    with pytest.raises(ValueError, match="repeats"):
        cohen_kappa_score(["a"], ["b"], labels=["a", "a", "b"])
    with pytest.raises(ValueError, match="no pairs"):
        cohen_kappa_score(["a"], ["b"], labels=["x", "y"])
    with pytest.raises(ValueError, match="labels="):
        cohen_kappa_score(["a", 1], ["a", 1])


def test_labels_fix_order_and_drop_others_as_sklearn() -> None:
    y1, y2 = ["a", "b", "c", "a"], ["a", "b", "a", "b"]
    assert cohen_kappa_score(y1, y2, labels=["a", "b"]) == pytest.approx(
        sk_kappa(y1, y2, labels=["a", "b"])
    )
    assert confusion(y1, y2, labels=["b", "a", "z"]) == {
        "b": {"b": 1, "a": 0, "z": 0},
        "a": {"b": 1, "a": 1, "z": 0},
        "z": {"b": 0, "a": 0, "z": 0},
    }


def test_bool_labels() -> None:
    y1, y2 = [True, True, False, False, True], [True, False, False, False, True]
    assert cohen_kappa_score(y1, y2) == pytest.approx(sk_kappa(y1, y2))
    assert list(confusion(y1, y2)) == [False, True]


# Against scikit-learn and statsmodels ---------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(label_pairs(alphabet=[0, 1, 2, 3]), st.sampled_from(WEIGHTS), st.booleans())
def test_kappa_matches_sklearn(
    pairs: tuple[list[int], list[int]], weights: str | None, fix: bool
) -> None:
    y1, y2 = pairs
    labels = [3, 1, 0, 2] if fix else None
    expected = quiet(sk_kappa, y1, y2, labels=labels, weights=weights)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        actual = cohen_kappa_score(y1, y2, labels=labels, weights=weights)  # type: ignore[arg-type]
    if math.isnan(expected):
        assert math.isnan(actual)
        assert any(issubclass(w.category, UndefinedStatisticWarning) for w in caught)
    else:
        assert actual == pytest.approx(expected, abs=1e-12)
        assert not caught


@settings(max_examples=100, deadline=None)
@given(label_pairs(), st.booleans())
def test_confusion_matches_sklearn(pairs: tuple[list[str], list[str]], fix: bool) -> None:
    y1, y2 = pairs
    labels = ["d", "b", "a", "c"] if fix else sorted(set(y1) | set(y2))
    table = confusion(y1, y2, labels=labels if fix else None)
    assert list(table) == labels
    matrix = quiet(confusion_matrix, y1, y2, labels=labels)
    assert [[table[r][c] for c in labels] for r in labels] == matrix.tolist()


@settings(max_examples=100, deadline=None)
@given(label_pairs(alphabet=[0, 1, 2, 3], max_size=60), st.sampled_from(WEIGHTS))
def test_standard_error_matches_statsmodels(
    pairs: tuple[list[int], list[int]], weights: str | None
) -> None:
    y1, y2 = pairs
    labels = sorted(set(y1) | set(y2))
    assume(len(labels) >= 2)
    table = np.array(
        [[row[c] for c in labels] for row in confusion(y1, y2, labels=labels).values()]
    )
    kappa = quiet(cohen_kappa_score, y1, y2, weights=weights)
    assume(not math.isnan(kappa))
    # statsmodels' "linear"/"quadratic" weights on np.arange(k) are sklearn's, rescaled.
    result = (
        quiet(cohens_kappa, table) if weights is None else quiet(cohens_kappa, table, wt=weights)
    )
    assert result.kappa == pytest.approx(kappa, abs=1e-12)
    if result.var_kappa >= 0:  # statsmodels' std is sqrt(var): nan for a rounding-negative var
        assert result.std_kappa == pytest.approx(math.sqrt(result.var_kappa), abs=1e-12)
    se = kappa_standard_error(y1, y2, weights=weights)  # type: ignore[arg-type]
    # compare variances: where the variance is ~0 its square root magnifies rounding
    assert se**2 == pytest.approx(max(result.var_kappa, 0.0), rel=1e-9, abs=1e-13)
    low, high = kappa_interval(y1, y2, weights=weights)  # type: ignore[arg-type]
    if result.var_kappa >= 0:
        assert low == pytest.approx(max(-1.0, result.kappa_low), abs=1e-6)
        assert high == pytest.approx(min(1.0, result.kappa_upp), abs=1e-6)


# Properties -----------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(label_pairs(), st.sampled_from(WEIGHTS))
def test_symmetry_in_the_raters(pairs: tuple[list[str], list[str]], weights: str | None) -> None:
    y1, y2 = pairs
    assert percent_agreement(y1, y2) == percent_agreement(y2, y1)
    k12 = quiet(cohen_kappa_score, y1, y2, weights=weights)
    k21 = quiet(cohen_kappa_score, y2, y1, weights=weights)
    assert (math.isnan(k12) and math.isnan(k21)) or k12 == pytest.approx(k21, abs=1e-12)
    assert gwet_ac1_score(y1, y2) == pytest.approx(gwet_ac1_score(y2, y1), abs=1e-12)
    s12 = quiet(kappa_standard_error, y1, y2, weights=weights)
    s21 = quiet(kappa_standard_error, y2, y1, weights=weights)
    assert (math.isnan(s12) and math.isnan(s21)) or s12**2 == pytest.approx(s21**2, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(label_pairs(), st.permutations(["w", "x", "y", "z"]), st.sampled_from(WEIGHTS))
def test_invariant_to_relabelling(
    pairs: tuple[list[str], list[str]], new_names: list[str], weights: str | None
) -> None:
    y1, y2 = pairs
    rename = dict(zip(["a", "b", "c", "d"], new_names, strict=True))
    z1, z2 = [rename[v] for v in y1], [rename[v] for v in y2]
    order = ["a", "b", "c", "d"]
    new_order = [rename[v] for v in order]  # same order, new names: weights must not change
    before = quiet(cohen_kappa_score, y1, y2, labels=order, weights=weights)
    after = quiet(cohen_kappa_score, z1, z2, labels=new_order, weights=weights)
    assert (math.isnan(before) and math.isnan(after)) or before == pytest.approx(after, abs=1e-12)
    if weights is None:  # unweighted kappa does not depend on the order at all
        unordered = quiet(cohen_kappa_score, z1, z2)
        assert (math.isnan(before) and math.isnan(unordered)) or before == pytest.approx(
            unordered, abs=1e-12
        )
    assert gwet_ac1_score(y1, y2) == pytest.approx(gwet_ac1_score(z1, z2), abs=1e-12)
    assert percent_agreement(y1, y2) == percent_agreement(z1, z2)


@settings(max_examples=100, deadline=None)
@given(label_pairs(), st.sampled_from(WEIGHTS))
def test_bounds(pairs: tuple[list[str], list[str]], weights: str | None) -> None:
    y1, y2 = pairs
    assert 0.0 <= percent_agreement(y1, y2) <= 1.0
    kappa = quiet(cohen_kappa_score, y1, y2, weights=weights)
    assert math.isnan(kappa) or -1.0 - 1e-12 <= kappa <= 1.0 + 1e-12
    assert -1.0 - 1e-12 <= gwet_ac1_score(y1, y2) <= 1.0 + 1e-12
    low, high = quiet(kappa_interval, y1, y2, weights=weights)
    if not math.isnan(kappa):
        assert -1.0 <= low <= kappa + 1e-12 and kappa - 1e-12 <= high <= 1.0


# Bootstrap ------------------------------------------------------------------------------


def _sample(n: int, seed: int) -> tuple[list[int], list[int]]:
    rng = np.random.default_rng(seed)
    human = rng.random(n) < 0.3
    judge = np.where(human, rng.random(n) < 0.85, rng.random(n) < 0.1)
    return human.astype(int).tolist(), judge.astype(int).tolist()


def test_bootstrap_is_seeded_and_near_the_analytic_interval() -> None:
    y1, y2 = _sample(2000, 1)
    first = kappa_interval(y1, y2, method="bootstrap", seed=7)
    assert first == kappa_interval(y1, y2, method="bootstrap", seed=7)
    assert first != kappa_interval(y1, y2, method="bootstrap", seed=8)
    analytic = kappa_interval(y1, y2)
    assert first[0] == pytest.approx(analytic[0], abs=0.01)
    assert first[1] == pytest.approx(analytic[1], abs=0.01)
    kappa = cohen_kappa_score(y1, y2)
    assert first[0] < kappa < first[1]


def test_multinomial_tables_equal_index_resampling_in_distribution() -> None:
    y1, y2 = _sample(300, 2)
    pairs = encode_pairs(y1, y2)
    weights = disagreement_weights(pairs.k, None)
    tables_a = _bootstrap_tables(pairs.table(), 4000, np.random.default_rng(0))
    tables_b = _bootstrap_tables_by_index(pairs, 4000, np.random.default_rng(1), chunk_cells=10**5)
    assert (tables_a.sum(axis=(1, 2)) == 300).all() and (tables_b.sum(axis=(1, 2)) == 300).all()
    # Each cell's mean count is n·p and the kappa percentiles agree within Monte Carlo error.
    assert tables_a.mean(axis=0) == pytest.approx(pairs.table(), abs=0.5)
    assert tables_b.mean(axis=0) == pytest.approx(pairs.table(), abs=0.5)
    qa = np.quantile(table_kappas(tables_a, weights), [0.025, 0.5, 0.975])
    qb = np.quantile(table_kappas(tables_b, weights), [0.025, 0.5, 0.975])
    assert qa == pytest.approx(qb, abs=0.015)


# Sample size ----------------------------------------------------------------------------


def test_sample_size_hand_worked() -> None:
    # balanced binary default: se = √((1 - 0.64)/100) = 0.06, √N ≥ 1.96·0.6/0.1 → N ≥ 138.3
    assert kappa_sample_size(0.8, 100, bar=0.7) == 39
    assert kappa_sample_size(0.8, 100, bar=0.6) == 0
    assert kappa_sample_size(0.6, 100, bar=0.6) is None
    assert kappa_sample_size(0.5, 100, bar=0.6) is None
    assert kappa_sample_size(0.8, 100, bar=0.7, standard_error=0.0) == 0
    with pytest.raises(ValueError, match="n must"):
        kappa_sample_size(0.8, 0, bar=0.6)
    with pytest.raises(ValueError, match="observed_kappa"):
        kappa_sample_size(1.5, 10, bar=0.6)


@pytest.mark.parametrize("bar", [0.3, 0.45, 0.55, 0.6])
def test_sample_size_reaches_the_bar_when_the_labels_repeat(bar: float) -> None:
    y1, y2 = _sample(60, 3)
    kappa = cohen_kappa_score(y1, y2)
    se = kappa_standard_error(y1, y2)
    more = kappa_sample_size(kappa, 60, bar=bar, standard_error=se)
    assert more is not None
    # Repeating every pair r times keeps kappa and the class balance and divides the SE by √r.
    for total, reaches in ((60 + more, True), (60 + more - 1, more == 0)):
        projected = kappa - 1.959963984540054 * se * math.sqrt(60 / total)
        assert (projected >= bar) is reaches or more == 0
    repeat = math.ceil((60 + more) / 60)
    low, _ = kappa_interval(y1 * repeat, y2 * repeat)
    assert low >= bar - 1e-12
