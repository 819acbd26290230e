"""Krippendorff's alpha against the `krippendorff` package, hand-worked values, properties."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from judgekit.stats import UndefinedStatisticWarning, cohen_kappa_score, krippendorff_alpha

LEVELS = ["nominal", "ordinal", "interval"]


@st.composite
def rating_tables(draw: st.DrawFn) -> list[list[int | None]]:
    raters = draw(st.integers(min_value=2, max_value=5))
    items = draw(st.integers(min_value=1, max_value=15))
    value = st.one_of(st.none(), st.integers(min_value=1, max_value=5))
    return [[draw(value) for _ in range(raters)] for _ in range(items)]


def reference(ratings: list[list[int | None]], level: str) -> float:
    data = np.array([[np.nan if v is None else v for v in row] for row in ratings], dtype=float)
    return float(krippendorff.alpha(reliability_data=data.T, level_of_measurement=level))


def ours(ratings: list[list[int | None]], level: str) -> float:
    return krippendorff_alpha(ratings, level=level, replace_undefined_by=math.nan)  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(rating_tables(), st.sampled_from(LEVELS))
def test_matches_the_krippendorff_package(ratings: list[list[int | None]], level: str) -> None:
    actual = ours(ratings, level)
    assume(not math.isnan(actual))
    assert actual == pytest.approx(reference(ratings, level), abs=1e-9)


def test_hand_worked_nominal() -> None:
    # items (a,a), (b,b), (a,b): coincidences o_aa = 2, o_bb = 2, o_ab = o_ba = 1; n = 6,
    # D_o = 2/6; D_e = 2·3·3 / (6·5) = 0.6; alpha = 1 - (1/3)/0.6 = 4/9
    assert krippendorff_alpha([["a", "a"], ["b", "b"], ["a", "b"]]) == pytest.approx(4 / 9)


def test_hand_worked_interval_with_missing() -> None:
    # pairable items: (1, 1) and (2, 3, 3); the third has one label and is left out.
    # values 1,1,2,3,3 (n = 5). o_13 = 0, o_23 = o_32 = 2·1/2 = 1, o_33 = 1, o_11 = 2.
    # D_o = Σ o·δ / n = (1 + 1)·1 / 5 = 0.4; D_e = Σ n_c n_k δ / (n(n-1)) = 2·(2·1·1 + 2·2·4 +
    # 1·2·1) / 20 = 2; alpha = 1 - 0.4/2 = 0.8
    ratings = [[1, 1, None], [2, 3, 3], [None, None, 1]]
    assert krippendorff_alpha(ratings, level="interval") == pytest.approx(0.8)
    nan_missing = [[1.0, 1.0, math.nan], [2.0, 3.0, 3.0], [math.nan, math.nan, 1.0]]
    assert krippendorff_alpha(nan_missing, level="interval") == pytest.approx(0.8)


def test_two_raters_no_missing_is_close_to_kappa() -> None:
    # With two raters alpha = 1 - (n - 1)/n · (1 - pi) relates to Scott's pi; it approaches
    # kappa when the raters' marginals match.
    y1 = ["a"] * 40 + ["b"] * 40 + ["a"] * 10 + ["b"] * 10
    y2 = ["a"] * 40 + ["b"] * 40 + ["b"] * 10 + ["a"] * 10
    alpha = krippendorff_alpha([list(pair) for pair in zip(y1, y2, strict=True)])
    assert alpha == pytest.approx(cohen_kappa_score(y1, y2), abs=0.01)


def test_edges() -> None:
    assert krippendorff_alpha([["a", "a"], ["b", "b"]]) == 1.0
    with pytest.warns(UndefinedStatisticWarning, match="single distinct"):
        assert math.isnan(krippendorff_alpha([["a", "a"], ["a", "a"]]))
    with pytest.warns(UndefinedStatisticWarning, match="no item has two labels"):
        assert math.isnan(krippendorff_alpha([["a", None], [None, "b"]]))
    with pytest.raises(ValueError, match="no ratings"):
        krippendorff_alpha([])
    with pytest.raises(ValueError, match="row lengths"):
        krippendorff_alpha([["a", "b"], ["a"]])
    with pytest.raises(ValueError, match="numeric"):
        krippendorff_alpha([["a", "b"]], level="interval")
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha([["a", "b"]], level="ratio")  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(rating_tables(), st.sampled_from(LEVELS), st.randoms(use_true_random=False))
def test_symmetric_in_the_labellers_and_bounded(
    ratings: list[list[int | None]], level: str, random: object
) -> None:
    order = list(range(len(ratings[0])))
    random.shuffle(order)  # type: ignore[attr-defined]
    shuffled = [[row[i] for i in order] for row in ratings]
    items = list(ratings)
    random.shuffle(items)  # type: ignore[attr-defined]
    a, b, c = ours(ratings, level), ours(shuffled, level), ours(items, level)
    if math.isnan(a):
        assert math.isnan(b) and math.isnan(c)
    else:
        assert a == pytest.approx(b, abs=1e-12) and a == pytest.approx(c, abs=1e-12)
        assert a <= 1.0 + 1e-12


@settings(max_examples=100, deadline=None)
@given(rating_tables(), st.permutations(["p", "q", "r", "s", "t"]))
def test_nominal_invariant_to_relabelling(
    ratings: list[list[int | None]], names: list[str]
) -> None:
    renamed = [[None if v is None else names[v - 1] for v in row] for row in ratings]
    a, b = ours(ratings, "nominal"), ours(renamed, "nominal")  # type: ignore[arg-type]
    assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)
