"""The statistics scikit-learn and krippendorff compute keep judgekit's contract: their own
warnings never reach the caller, an undefined value is one UndefinedStatisticWarning (or the
replacement, silently), and labels of any hashable kind work."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score as sklearn_kappa
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

from judgekit.stats import (
    UndefinedStatisticWarning,
    cohen_kappa_score,
    confusion,
    krippendorff_alpha,
    per_class_scores,
)


def _warnings_of(call: object) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert callable(call)
        call()
    return caught


def test_undefined_kappa_is_one_judgekit_warning_and_no_sklearn_one() -> None:
    caught = _warnings_of(lambda: cohen_kappa_score(["pass"] * 4, ["pass"] * 4))
    assert [(w.category, str(w.message)) for w in caught] == [
        (
            UndefinedStatisticWarning,
            "Cohen's kappa is undefined when chance agreement is total "
            "(both raters used one and the same label throughout)",
        )
    ]
    assert (
        _warnings_of(
            lambda: cohen_kappa_score(["pass"] * 4, ["pass"] * 4, replace_undefined_by=0.0)
        )
        == []
    )


def test_a_one_label_confusion_table_warns_nothing() -> None:
    # sklearn's confusion_matrix warns on a 1×1 matrix even when given labels=
    assert _warnings_of(lambda: confusion(["pass"] * 3, ["pass"] * 3)) == []
    assert confusion(["pass"] * 3, ["pass"] * 3) == {"pass": {"pass": 3}}


def test_weighted_kappa_follows_the_order_of_labels_as_sklearn_does() -> None:
    human = ["low", "mid", "high", "high", "mid", "low", "mid"]
    judge = ["mid", "mid", "high", "mid", "low", "low", "high"]
    order = ["low", "mid", "high"]  # not the sorted order (high < low < mid)
    for weights in (None, "linear", "quadratic"):
        assert cohen_kappa_score(human, judge, labels=order, weights=weights) == sklearn_kappa(
            human, judge, labels=order, weights=weights
        )
    assert cohen_kappa_score(human, judge, labels=order, weights="quadratic") != (
        cohen_kappa_score(human, judge, weights="quadratic")
    )


def test_labels_of_mixed_kinds_are_encoded_before_sklearn_sees_them() -> None:
    # sklearn refuses a mix of str and bool labels; judgekit passes it codes into labels=
    human: list[object] = [True, "unsure", False, True]
    judge: list[object] = [True, "unsure", True, True]
    labels = [False, "unsure", True]
    assert confusion(human, judge, labels=labels) == {
        False: {False: 0, "unsure": 0, True: 1},
        "unsure": {False: 0, "unsure": 1, True: 0},
        True: {False: 0, "unsure": 0, True: 2},
    }
    codes = {label: i for i, label in enumerate(labels)}
    expected = confusion_matrix([codes[h] for h in human], [codes[j] for j in judge])
    assert expected.tolist() == [[0, 0, 1], [0, 1, 0], [0, 0, 2]]
    # p_o = 3/4, p_e = (1·0 + 1·1 + 2·3)/16 = 7/16: kappa = (5/16) / (9/16)
    assert cohen_kappa_score(human, judge, labels=labels) == pytest.approx(5 / 9, abs=1e-15)


def test_per_class_scores_warn_once_naming_each_undefined_figure() -> None:
    human = ["pass", "pass", "fail"]
    judged = ["pass", "pass", "pass"]
    caught = _warnings_of(
        lambda: per_class_scores(human, judged, labels=["pass", "fail", "partial"])
    )
    assert [(w.category, str(w.message)) for w in caught] == [
        (
            UndefinedStatisticWarning,
            "precision of 'fail' is undefined: never chosen by the judge; "
            "precision of 'partial' is undefined: never chosen by the judge; "
            "recall of 'partial' is undefined: no human label in this class; "
            "F1 of 'partial' is undefined: the class never occurs",
        )
    ]
    scores = per_class_scores(
        human, judged, labels=["pass", "fail", "partial"], replace_undefined_by=0.25
    )
    precision, recall, f1, support = precision_recall_fscore_support(
        human, judged, labels=["pass", "fail"], zero_division=0.0
    )
    assert scores.classes["pass"].precision == precision[0] == 2 / 3
    assert scores.classes["fail"].precision == 0.25  # judgekit's replacement, not sklearn's 0
    assert scores.classes["fail"].recall == recall[1] == 0.0
    assert scores.classes["partial"].f1 == 0.25
    assert [scores.classes[c].support for c in ("pass", "fail", "partial")] == [2, 1, 0]
    assert list(support) == [2, 1]
    assert scores.macro_f1 == pytest.approx((f1[0] + f1[1] + 0.25) / 3, abs=1e-15)


def test_alpha_is_the_krippendorff_package_value_for_string_labels_at_every_level() -> None:
    ratings = [
        ["bad", "bad", None],
        ["ok", "good", "good"],
        [None, "ok", "ok"],
        ["good", "good", "good"],
        ["bad", "ok", None],
    ]
    order = {"bad": 1.0, "ok": 2.0, "good": 3.0}
    as_numbers = np.array(
        [[math.nan if v is None else order[v] for v in row] for row in ratings]
    ).T  # the package's layout: labellers × items
    for level in ("nominal", "ordinal"):
        numeric_rows = [[None if v is None else order[v] for v in row] for row in ratings]
        expected = krippendorff.alpha(as_numbers, level_of_measurement=level)
        assert krippendorff_alpha(numeric_rows, level=level) == pytest.approx(expected, abs=1e-12)
    # ordinal on the strings orders them as sorted strings (bad < good < ok)
    sorted_codes = {"bad": 0.0, "good": 1.0, "ok": 2.0}
    by_string = np.array(
        [[math.nan if v is None else sorted_codes[v] for v in row] for row in ratings]
    ).T
    assert krippendorff_alpha(ratings, level="ordinal") == pytest.approx(
        krippendorff.alpha(by_string, level_of_measurement="ordinal"), abs=1e-12
    )


def test_alpha_with_one_label_is_undefined_not_a_package_error() -> None:
    caught = _warnings_of(lambda: krippendorff_alpha([["a", "a"], ["a", None]]))
    assert [(w.category, str(w.message)) for w in caught] == [
        (
            UndefinedStatisticWarning,
            "Krippendorff's alpha is undefined with a single distinct label",
        )
    ]


def test_importing_the_statistics_and_prices_loads_no_library_until_used() -> None:
    libraries = ["sklearn", "krippendorff", "genai_prices"]
    probe = (
        "import sys\n"
        "import judgekit.cli, judgekit.stats.agreement, judgekit.stats.alpha\n"
        "import judgekit.stats.scale_errors, judgekit.judging.pricing\n"
        f"print(sorted(m for m in {libraries!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == "[]\n"
