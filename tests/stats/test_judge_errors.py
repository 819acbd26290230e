"""Judge error rates against scikit-learn and Wilson intervals; the Rogan-Gladen correction."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support
from statsmodels.stats.proportion import proportion_confint

from judgekit.stats import UndefinedStatisticWarning, judge_error_rates, rogan_gladen


def test_hand_worked() -> None:
    human = ["pass"] * 8 + ["fail"] * 12
    judge = ["pass"] * 6 + ["fail"] * 2 + ["pass"] * 3 + ["fail"] * 9
    rates = judge_error_rates(human, judge, pos_label="pass")
    assert (rates.true_pass, rates.false_fail, rates.false_pass, rates.true_fail) == (6, 2, 3, 9)
    assert rates.sensitivity.estimate == 0.75 and rates.recall == rates.sensitivity
    assert rates.false_fail_rate.estimate == 0.25
    assert rates.specificity.estimate == 0.75 and rates.false_pass_rate.estimate == 0.25
    assert rates.precision.estimate == pytest.approx(6 / 9)
    assert rates.f1 == pytest.approx(12 / 17)  # 2·6 / (2·6 + 3 + 2)
    low, high = proportion_confint(6, 8, method="wilson")
    assert (rates.sensitivity.low, rates.sensitivity.high) == pytest.approx((low, high))
    assert rates.n == 20


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=50))
def test_matches_sklearn(pairs: list[tuple[bool, bool]]) -> None:
    human = ["pass" if h else "fail" for h, _ in pairs]
    judge = ["pass" if j else "fail" for _, j in pairs]
    rates = judge_error_rates(human, judge, pos_label="pass", replace_undefined_by=math.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        precision, recall, f1, _ = precision_recall_fscore_support(
            human, judge, pos_label="pass", average="binary", zero_division=np.nan
        )
    (tn, fp), (fn, tp) = confusion_matrix(human, judge, labels=["fail", "pass"]).tolist()
    assert (rates.true_pass, rates.false_pass, rates.false_fail, rates.true_fail) == (
        tp,
        fp,
        fn,
        tn,
    )
    for ours, theirs in ((rates.precision.estimate, precision), (rates.recall.estimate, recall)):
        assert (math.isnan(ours) and math.isnan(theirs)) or ours == pytest.approx(theirs)
    if not (math.isnan(rates.f1) or math.isnan(f1)):
        assert rates.f1 == pytest.approx(f1)
    for rate in (rates.sensitivity, rates.specificity, rates.false_pass_rate, rates.precision):
        if rate.n:
            low, high = proportion_confint(rate.count, rate.n, method="wilson")
            assert (rate.low, rate.high) == pytest.approx((low, high), abs=1e-12)
            assert rate.low <= rate.estimate <= rate.high
    if rates.specificity.n:
        assert rates.false_pass_rate.estimate == pytest.approx(1 - rates.specificity.estimate)


def test_undefined_rates_warn() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rates = judge_error_rates(["fail", "fail"], ["pass", "fail"], pos_label="pass")
    messages = [str(w.message) for w in caught if w.category is UndefinedStatisticWarning]
    assert any("sensitivity" in m for m in messages) and any("F1" in m for m in messages)
    assert math.isnan(rates.sensitivity.estimate) and math.isnan(rates.f1)
    assert rates.specificity.estimate == 0.5


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="no pairs"):
        judge_error_rates([], [], pos_label="pass")
    with pytest.raises(ValueError, match="same length, got 2 and 1"):
        judge_error_rates(["pass", "fail"], ["pass"], pos_label="pass")
    with pytest.raises(ValueError, match="binary"):
        judge_error_rates(["pass", "fail"], ["pass", "maybe"], pos_label="pass")
    with pytest.raises(ValueError, match="pos_label='Pass'"):
        judge_error_rates(["pass", "fail"], ["pass", "fail"], pos_label="Pass")


def test_rogan_gladen() -> None:
    assert rogan_gladen(0.62, 0.9, 0.8) == pytest.approx(0.6)
    assert rogan_gladen(0.05, 0.9, 0.8) == 0.0  # below the false-pass floor: clipped
    assert rogan_gladen(0.99, 0.9, 0.8) == 1.0
    # Unclipped, for a caller that says it clipped: (0.05 + 0.8 − 1) / 0.7 and (0.99 − 0.2) / 0.7
    assert rogan_gladen(0.05, 0.9, 0.8, clip=False) == pytest.approx(-0.15 / 0.7)
    assert rogan_gladen(0.99, 0.9, 0.8, clip=False) == pytest.approx(0.79 / 0.7)
    assert rogan_gladen(0.3, 1.0, 1.0) == pytest.approx(0.3)  # a perfect judge: no correction
    with pytest.warns(UndefinedStatisticWarning, match="sensitivity \\+ specificity"):
        assert math.isnan(rogan_gladen(0.5, 0.5, 0.5))
    with pytest.raises(ValueError, match="sensitivity"):
        rogan_gladen(0.5, 1.2, 0.5)


@settings(max_examples=100, deadline=None)
@given(st.floats(0, 1), st.floats(0.55, 1), st.floats(0.55, 1))
def test_rogan_gladen_inverts_the_misclassification(
    prevalence: float, sens: float, spec: float
) -> None:
    observed = prevalence * sens + (1 - prevalence) * (1 - spec)
    assert rogan_gladen(observed, sens, spec) == pytest.approx(prevalence, abs=1e-9)
