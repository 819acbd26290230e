"""Every public statistic keeps scikit-learn's contract: one input error, nan and one warning
where the data cannot define a value, and ``replace_undefined_by=`` to say what to return."""

from __future__ import annotations

import dataclasses
import inspect
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

import judgekit.stats
from judgekit.errors import CalibrationError, JudgekitError
from judgekit.stats import (
    CalibrationInputError,
    JudgeErrorRates,
    StatisticsInputError,
    UndefinedStatisticWarning,
    brier_score,
    calibration_errors,
    cohen_kappa_score,
    confusion,
    expected_calibration_error,
    gwet_ac1_score,
    holm_rejections,
    judge_error_rates,
    kappa_interval,
    kappa_sample_size,
    kappa_standard_error,
    krippendorff_alpha,
    likert_errors,
    mcnemar_test,
    paired_kappa_differences,
    pass_at_k,
    pass_hat_k,
    per_class_scores,
    percent_agreement,
    ppi_mean_interval,
    ppi_rate_interval,
    reliability_curve,
    rogan_gladen,
    two_proportion_test,
    wilson_interval,
)

ONE_LABEL = ["pass"] * 3


@dataclass(frozen=True)
class Call:
    """A function and the arguments to call it with."""

    function: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __call__(self, **more: Any) -> Any:
        return self.function(*self.args, **self.kwargs, **more)

    def __str__(self) -> str:
        return self.function.__name__


IMPOSSIBLE = [
    (Call(pass_at_k, (3, 4, 1)), "need 0 ≤ c ≤ n, got n=3, c=4"),
    (Call(pass_hat_k, (3, 1, 0)), "k must be a whole number ≥ 1, got 0"),
    (
        Call(wilson_interval, (1, 2), {"confidence": 1.5}),
        "confidence must be between 0 and 1, got 1.5",
    ),
    (Call(two_proportion_test, (-1, 5, 2, 5)), "need 0 ≤ c ≤ n, got n=5, c=-1"),
    (
        Call(percent_agreement, (["a"], ["a", "b"])),
        "y1 and y2 must have the same length, got 1 and 2",
    ),
    (Call(confusion, ([], [])), "no pairs: y1 and y2 are empty"),
    (
        Call(cohen_kappa_score, (["a"], ["a"]), {"weights": "cubic"}),
        "weights must be None, 'linear' or 'quadratic', got 'cubic'",
    ),
    (Call(kappa_standard_error, (["a"], ["a"]), {"labels": []}), "labels= is empty"),
    (
        Call(kappa_interval, (["a", "b"], ["a", "b"]), {"method": "jackknife"}),
        "method must be 'analytic' or 'bootstrap', got 'jackknife'",
    ),
    (Call(kappa_sample_size, (0.8, 0), {"bar": 0.7}), "n must be a whole number ≥ 1, got 0"),
    (
        Call(gwet_ac1_score, (["a"], ["b"]), {"labels": ["c"]}),
        "no pairs: none of the 1 pairs has both labels in labels=['c']",
    ),
    (Call(krippendorff_alpha, ([],)), "no ratings: ratings has no items"),
    (
        Call(judge_error_rates, (["pass", "fail"], ["pass", "maybe"]), {"pos_label": "pass"}),
        "judge_error_rates needs binary labels including pos_label='pass', "
        "got [\"'fail'\", \"'maybe'\", \"'pass'\"]",
    ),
    (Call(rogan_gladen, (0.5, 1.2, 0.5)), "sensitivity must be in [0, 1], got 1.2"),
    (Call(mcnemar_test, ([True, 2], [True, False])), "a_correct must be booleans, got 2"),
    (
        Call(paired_kappa_differences, (["a"], ["a"], ["a", "b"])),
        "y_true and y_b must have the same length, got 1 and 2",
    ),
    (
        Call(ppi_mean_interval, ([1, 0], [1, 0], [1, 0]), {"confidence": 0.0}),
        "confidence must be between 0 and 1, got 0.0",
    ),
    (
        Call(ppi_rate_interval, ([1, 0.5], [1, 0], [1, 0])),
        "human must be 0 or 1 (or booleans) for a rate",
    ),
    (
        Call(holm_rejections, ({"a": 0.01},), {"alpha": 1.5}),
        "alpha must be between 0 and 1, got 1.5",
    ),
    (
        Call(likert_errors, ([1, 2], [1])),
        "human and judged must have the same length, got 2 and 1",
    ),
    (
        Call(per_class_scores, (["a"], ["a"]), {"labels": []}),
        "labels must name at least one class",
    ),
    (
        Call(expected_calibration_error, ([1], [math.nan])),
        "y_prob must lie in [0, 1], got nan",
    ),
    (Call(brier_score, ([2], [0.5])), "y_true must hold 0/1 or booleans, got 2"),
    (
        Call(reliability_curve, ([1], [0.5]), {"n_bins": 0}),
        "n_bins must be a whole number ≥ 1, got 0",
    ),
    (
        Call(calibration_errors, ([1], [0.5]), {"confidence": 1.0}),
        "confidence must be between 0 and 1, got 1.0",
    ),
]


def _rate_values(rates: JudgeErrorRates) -> list[float]:
    """The figures an all-fail human column leaves undefined."""
    return [
        *(getattr(rates.sensitivity, f) for f in ("estimate", "low", "high")),
        *(getattr(rates.false_fail_rate, f) for f in ("estimate", "low", "high")),
        rates.f1,
    ]


def _as_list(result: Any) -> list[float]:
    if isinstance(result, float):
        return [result]
    if dataclasses.is_dataclass(result):
        return list(dataclasses.astuple(result))  # type: ignore[arg-type]
    return list(result)


# Each call with input the statistic cannot define, and the values that are then undefined.
UNDEFINED: list[tuple[Call, Callable[[Any], list[float]]]] = [
    (Call(pass_at_k, (0, 0, 1)), _as_list),
    (Call(pass_hat_k, (3, 1, 4)), _as_list),
    (Call(wilson_interval, (0, 0)), _as_list),
    (Call(two_proportion_test, (0, 0, 3, 5)), _as_list),
    (Call(cohen_kappa_score, (ONE_LABEL, ONE_LABEL)), _as_list),
    (Call(kappa_standard_error, (ONE_LABEL, ONE_LABEL)), _as_list),
    (Call(kappa_interval, (ONE_LABEL, ONE_LABEL)), _as_list),
    (Call(kappa_interval, (ONE_LABEL, ONE_LABEL), {"method": "bootstrap"}), _as_list),
    (Call(krippendorff_alpha, ([["a", "a"], ["a", None]],)), _as_list),
    (Call(krippendorff_alpha, ([["a", None], [None, "b"]],)), _as_list),
    (
        Call(judge_error_rates, (["fail", "fail"], ["pass", "fail"]), {"pos_label": "pass"}),
        _rate_values,
    ),
    (Call(rogan_gladen, (0.5, 0.5, 0.5)), _as_list),
    (Call(ppi_mean_interval, ([1], [1], [1, 0, 1])), _as_list),
    (Call(ppi_rate_interval, ([1], [1], [1, 0, 1])), lambda r: _as_list(r)[:3]),
    # 1 + 1 with no spread: an interval wholly past 1
    (Call(ppi_rate_interval, ([1, 1], [0, 0], [1, 1])), lambda r: _as_list(r)[:3]),
    (Call(paired_kappa_differences, (ONE_LABEL, ONE_LABEL, ONE_LABEL)), _as_list),
    (
        Call(likert_errors, ([], [])),
        lambda e: [
            *dataclasses.astuple(e.mean_absolute_error),
            *dataclasses.astuple(e.mean_signed_error),
        ],
    ),
    (
        Call(per_class_scores, (["a"], ["a"]), {"labels": ["a", "b"]}),
        lambda s: list(dataclasses.astuple(s.classes["b"]))[:3],
    ),
]

PUBLIC_FUNCTIONS = {
    getattr(judgekit.stats, name)
    for name in judgekit.stats.__all__
    if inspect.isfunction(getattr(judgekit.stats, name))
}
CAN_BE_UNDEFINED = {call.function for call, _ in UNDEFINED}
UNDEFINED_IDS = [str(call) for call, _ in UNDEFINED]


def test_every_public_function_is_checked() -> None:
    assert {call.function for call, _ in IMPOSSIBLE} == PUBLIC_FUNCTIONS
    assert CAN_BE_UNDEFINED <= PUBLIC_FUNCTIONS


def test_one_error_class() -> None:
    assert CalibrationInputError is StatisticsInputError
    assert issubclass(StatisticsInputError, ValueError)
    assert issubclass(StatisticsInputError, CalibrationError)
    assert issubclass(StatisticsInputError, JudgekitError)


@pytest.mark.parametrize(("call", "message"), IMPOSSIBLE, ids=[str(c) for c, _ in IMPOSSIBLE])
def test_impossible_input_raises_the_one_error(call: Call, message: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before anything is warned
        with pytest.raises(StatisticsInputError) as raised:
            call()
    assert type(raised.value) is StatisticsInputError
    assert str(raised.value) == message


@pytest.mark.parametrize(("call", "undefined_values"), UNDEFINED, ids=UNDEFINED_IDS)
def test_undefined_is_nan_with_one_warning(
    call: Call, undefined_values: Callable[[Any], list[float]]
) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    assert [w.category for w in caught] == [UndefinedStatisticWarning]
    values = undefined_values(result)
    assert values and all(math.isnan(v) for v in values)


@pytest.mark.parametrize("replacement", [0.0, -1.0, math.nan])
@pytest.mark.parametrize(("call", "undefined_values"), UNDEFINED, ids=UNDEFINED_IDS)
def test_replace_undefined_by_is_returned_without_a_warning(
    call: Call, undefined_values: Callable[[Any], list[float]], replacement: float
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = call(replace_undefined_by=replacement)
    values = undefined_values(result)
    if math.isnan(replacement):
        assert values and all(math.isnan(v) for v in values)
    else:
        assert values == [replacement] * len(values)


def test_replace_undefined_by_leaves_defined_values_alone() -> None:
    rates = judge_error_rates(
        ["fail", "fail"], ["pass", "fail"], pos_label="pass", replace_undefined_by=0.0
    )
    assert (rates.specificity.estimate, rates.false_pass_rate.estimate) == (0.5, 0.5)
    assert rates.precision.estimate == 0.0  # 0 of 1 judged passes: defined, not replaced
    assert pass_at_k(10, 3, 1, replace_undefined_by=-1.0) == pytest.approx(0.3)
    assert wilson_interval(10, 10, replace_undefined_by=-1.0)[1] == 1.0


@pytest.mark.parametrize(("call", "undefined_values"), UNDEFINED, ids=UNDEFINED_IDS)
def test_replace_undefined_by_is_keyword_only_and_warns_by_default(
    call: Call, undefined_values: Callable[[Any], list[float]]
) -> None:
    parameter = inspect.signature(call.function).parameters["replace_undefined_by"]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
    assert parameter.default == "warn"


@pytest.mark.parametrize("bad", ["ignore", None, True, [0.0]])
@pytest.mark.parametrize(("call", "undefined_values"), UNDEFINED, ids=UNDEFINED_IDS)
def test_replace_undefined_by_must_be_a_number(
    call: Call, undefined_values: Callable[[Any], list[float]], bad: object
) -> None:
    with pytest.raises(StatisticsInputError) as raised:
        call(replace_undefined_by=bad)
    assert str(raised.value) == f"replace_undefined_by must be 'warn' or a number, got {bad!r}"


def test_judge_error_rates_names_every_undefined_figure_in_one_warning() -> None:
    with pytest.warns(UndefinedStatisticWarning) as caught:
        judge_error_rates(["fail", "fail"], ["pass", "fail"], pos_label="pass")
    assert [str(w.message) for w in caught] == [
        "sensitivity is undefined: there is nothing to take it over (n = 0); "
        "the false fail rate is undefined: there is nothing to take it over (n = 0); "
        "F1 is undefined where precision or recall is"
    ]
