"""The paired bootstrap of a difference of kappas, against scikit-learn resample by resample."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning  # type: ignore[import-untyped]
from sklearn.metrics import cohen_kappa_score as sk_kappa  # type: ignore[import-untyped]

from judgekit.stats import StatisticsInputError, UndefinedStatisticWarning
from judgekit.stats import paired_kappa_differences as differences_of

HUMAN = ["pass", "pass", "fail", "fail", "pass", "fail", "pass", "pass", "fail", "pass"]
JUDGE_A = ["pass", "fail", "fail", "fail", "pass", "pass", "pass", "pass", "fail", "fail"]
JUDGE_B = ["pass", "pass", "fail", "pass", "pass", "fail", "fail", "pass", "fail", "pass"]
LABELS = ["fail", "pass"]


def _reference(n_resamples: int, seed: int) -> list[float]:
    """kappa_B - kappa_A by scikit-learn on the same seeded resamples, one at a time."""
    index = np.random.default_rng(seed).integers(0, len(HUMAN), size=(n_resamples, len(HUMAN)))
    out = []
    for row in index:
        human = [HUMAN[i] for i in row]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            kappa_a = sk_kappa(human, [JUDGE_A[i] for i in row], labels=LABELS)
            kappa_b = sk_kappa(human, [JUDGE_B[i] for i in row], labels=LABELS)
        out.append(kappa_b - kappa_a)
    return out


def test_each_resample_matches_scikit_learn() -> None:
    got = differences_of(
        HUMAN, JUDGE_A, JUDGE_B, n_resamples=500, seed=3, replace_undefined_by=math.nan
    )
    expected = _reference(500, 3)
    assert got.shape == (500,)
    assert [math.isnan(v) for v in got] == [math.isnan(v) for v in expected]
    defined = [(g, e) for g, e in zip(got.tolist(), expected, strict=True) if not math.isnan(e)]
    assert [g for g, _ in defined] == pytest.approx([e for _, e in defined], abs=1e-12)


def test_hand_worked_first_resamples() -> None:
    # Judge B is the humans themselves: each difference is 1 - kappa_A of that resample.
    got = differences_of(HUMAN[:6], JUDGE_A[:6], HUMAN[:6], n_resamples=5, seed=1)
    assert [round(float(v), 4) for v in got] == [0.3333, 1.3333, 0.6667, 0.6667, 0.6667]


def test_same_judge_twice_differs_by_zero() -> None:
    got = differences_of(HUMAN, JUDGE_A, JUDGE_A, n_resamples=200, replace_undefined_by=-9.0)
    assert set(got.tolist()) <= {0.0, -9.0}


def test_undefined_resamples_warn_once_or_are_replaced() -> None:
    with pytest.warns(UndefinedStatisticWarning) as caught:
        got = differences_of(["pass"] * 3, ["pass"] * 3, ["pass"] * 3, n_resamples=4)
    assert [str(w.message) for w in caught] == [
        "kappa is undefined in 4 of 4 paired resamples "
        "(one label throughout for the humans and a judge)"
    ]
    assert np.isnan(got).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        replaced = differences_of(
            ["pass"] * 3, ["pass"] * 3, ["pass"] * 3, n_resamples=4, replace_undefined_by=0.0
        )
    assert replaced.tolist() == [0.0] * 4


def test_the_chunked_count_equals_one_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    whole = differences_of(
        HUMAN, JUDGE_A, JUDGE_B, n_resamples=300, seed=5, replace_undefined_by=-9.0
    )
    monkeypatch.setattr("judgekit.stats.paired_kappa.CHUNK_CELLS", 7 * len(HUMAN))
    chunked = differences_of(
        HUMAN, JUDGE_A, JUDGE_B, n_resamples=300, seed=5, replace_undefined_by=-9.0
    )
    np.testing.assert_array_equal(whole, chunked)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((["a"], ["a", "b"], ["a"]), {}, "y_true and y_a must have the same length, got 1 and 2"),
        ((["a"], ["a"], []), {}, "y_true and y_b must have the same length, got 1 and 0"),
        (([], [], []), {}, "no items: y_true, y_a and y_b are empty"),
        ((["a"], ["a"], ["a"]), {"labels": []}, "labels= is empty"),
        ((["a"], ["a"], ["a"]), {"labels": ["a", "a"]}, "labels= repeats a label: ['a', 'a']"),
        (
            (["a", "b"], ["a", "a"], ["b", "c"]),
            {"labels": ["a", "c"]},
            "no items: none of the 2 items has all three labels in labels=['a', 'c']",
        ),
        (
            (["a"], ["a"], ["a"]),
            {"n_resamples": 0},
            "n_resamples must be a whole number ≥ 1, got 0",
        ),
    ],
)
def test_impossible_input(
    args: tuple[list[str], ...], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(StatisticsInputError) as raised:
        differences_of(*args, **kwargs)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_items_outside_labels_are_left_out() -> None:
    quiet = {"labels": LABELS, "replace_undefined_by": -9.0}
    kept = differences_of([*HUMAN, "x"], [*JUDGE_A, "pass"], [*JUDGE_B, "pass"], **quiet)
    np.testing.assert_array_equal(kept, differences_of(HUMAN, JUDGE_A, JUDGE_B, **quiet))
