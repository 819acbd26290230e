"""How a binary (pass/fail) judge errs against human labels, and correcting a judged pass rate."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from judgekit.stats._contract import (
    ReplaceUndefined,
    StatisticsInputError,
    check_replacement,
    check_same_length,
    undefined,
    z_value,
)
from judgekit.stats.proportions import wilson_interval

__all__ = ["JudgeErrorRates", "Rate", "judge_error_rates", "rogan_gladen"]


@dataclass(frozen=True)
class Rate:
    """``count`` out of ``n`` as ``estimate``, with its Wilson interval ``[low, high]``.

    ``n = 0`` makes every field but the counts nan (or the ``replace_undefined_by`` given).
    """

    estimate: float
    low: float
    high: float
    count: int
    n: int


def _rate(count: int, n: int, confidence: float, undefined_value: float) -> Rate:
    if n == 0:
        return Rate(undefined_value, undefined_value, undefined_value, count, n)
    low, high = wilson_interval(count, n, confidence=confidence)
    return Rate(count / n, low, high, count, n)


def _tally(
    human: list[Hashable], judge: list[Hashable], pos_label: Hashable
) -> tuple[int, int, int, int]:
    """(true pass, false pass, false fail, true fail), with ``pos_label`` the pass."""
    tp = fp = fn = tn = 0
    for h, j in zip(human, judge, strict=True):
        h_pass, j_pass = h == pos_label, j == pos_label
        if h_pass and j_pass:
            tp += 1
        elif j_pass:
            fp += 1
        elif h_pass:
            fn += 1
        else:
            tn += 1
    return tp, fp, fn, tn


@dataclass(frozen=True)
class JudgeErrorRates:
    """A judge's verdicts against human labels, with "pass" the positive class.

    ``sensitivity`` (= ``recall``): of what humans pass, the share the judge passes.
    ``specificity``: of what humans fail, the share the judge fails.
    ``false_pass_rate`` = 1 - specificity: of what humans fail, the share the judge passes.
    ``false_fail_rate`` = 1 - sensitivity: of what humans pass, the share the judge fails.
    ``precision``: of what the judge passes, the share humans pass. ``f1`` is the harmonic
    mean of precision and recall (nan where either is undefined, 0 where both are 0).
    """

    n: int
    true_pass: int
    false_pass: int
    false_fail: int
    true_fail: int
    sensitivity: Rate
    specificity: Rate
    false_pass_rate: Rate
    false_fail_rate: Rate
    precision: Rate
    recall: Rate
    f1: float


def judge_error_rates(
    human: Sequence[Hashable],
    judge: Sequence[Hashable],
    *,
    pos_label: Hashable,
    confidence: float = 0.95,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> JudgeErrorRates:
    """Sensitivity, specificity, false pass/fail rates, precision, recall and F1 of a judge.

    A label equal to ``pos_label`` is a pass, any other a fail; more than two distinct
    labels, or two that do not include ``pos_label``, is an error (likely a misspelt
    ``pos_label``). A rate over nothing (say sensitivity when humans passed nothing) is nan,
    with one warning naming every figure left undefined; with ``replace_undefined_by`` it is
    that value instead (not warned). Each rate carries its Wilson interval at ``confidence``.

    >>> rates = judge_error_rates(["pass", "pass", "pass", "fail", "fail"],
    ...                           ["pass", "pass", "fail", "pass", "fail"], pos_label="pass")
    >>> rates.sensitivity.estimate, rates.false_pass_rate.estimate, rates.f1
    (0.6666666666666666, 0.5, 0.6666666666666666)
    """
    human_list, judge_list = list(human), list(judge)
    check_same_length("human", human_list, "judge", judge_list)
    if not human_list:
        raise StatisticsInputError("no pairs: human and judge are empty")
    distinct = set(human_list) | set(judge_list)
    if len(distinct) > 2 or (len(distinct) == 2 and pos_label not in distinct):
        raise StatisticsInputError(
            f"judge_error_rates needs binary labels including pos_label={pos_label!r}, "
            f"got {sorted(map(repr, distinct))}"
        )
    z_value(confidence)  # refused before anything is warned
    check_replacement(replace_undefined_by)
    tp, fp, fn, tn = _tally(human_list, judge_list, pos_label)
    figures = {  # what: (count, over)
        "sensitivity": (tp, tp + fn),
        "precision": (tp, tp + fp),
        "specificity": (tn, tn + fp),
        "the false pass rate": (fp, tn + fp),
        "the false fail rate": (fn, tp + fn),
    }
    gaps = [
        f"{what} is undefined: there is nothing to take it over (n = 0)"
        for what, (_, over) in figures.items()
        if over == 0
    ]
    f1_defined = tp + fn > 0 and tp + fp > 0
    if not f1_defined:
        gaps.append("F1 is undefined where precision or recall is")
    # One warning for the call, naming every figure the data leaves undefined.
    value = undefined("; ".join(gaps), replace_undefined_by) if gaps else math.nan
    rates = {what: _rate(count, over, confidence, value) for what, (count, over) in figures.items()}
    f1 = 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)
    return JudgeErrorRates(
        n=len(human_list),
        true_pass=tp,
        false_pass=fp,
        false_fail=fn,
        true_fail=tn,
        sensitivity=rates["sensitivity"],
        specificity=rates["specificity"],
        false_pass_rate=rates["the false pass rate"],
        false_fail_rate=rates["the false fail rate"],
        precision=rates["precision"],
        recall=rates["sensitivity"],
        f1=f1 if f1_defined else value,
    )


def rogan_gladen(
    observed_rate: float,
    sensitivity: float,
    specificity: float,
    *,
    clip: bool = True,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> float:
    """The true pass rate implied by a judged pass rate and the judge's error rates.

    (observed + specificity - 1) / (sensitivity + specificity - 1), clipped to [0, 1]
    (Rogan & Gladen 1978): an observed rate below the judge's false-pass rate 1 - specificity
    gives 0, one above its sensitivity 1. ``clip=False`` returns the unclipped value, for a
    caller that reports the clipping (:func:`~judgekit.stats.bounded.clip_rate`). A judge no
    better than chance (sensitivity + specificity ≤ 1) carries no information: nan (warned),
    or ``replace_undefined_by`` (not warned) when given.

    >>> round(rogan_gladen(0.62, 0.9, 0.8), 4)  # (0.62 + 0.8 - 1) / 0.7
    0.6
    >>> rogan_gladen(0.95, 0.9, 0.8), round(rogan_gladen(0.95, 0.9, 0.8, clip=False), 4)
    (1.0, 1.0714)
    """
    for name, value in (
        ("observed_rate", observed_rate),
        ("sensitivity", sensitivity),
        ("specificity", specificity),
    ):
        if not 0.0 <= value <= 1.0:
            raise StatisticsInputError(f"{name} must be in [0, 1], got {value!r}")
    check_replacement(replace_undefined_by)
    youden = sensitivity + specificity - 1.0
    if youden <= 0.0:
        return undefined(
            f"the Rogan-Gladen correction is undefined when sensitivity + specificity ≤ 1 "
            f"(got {sensitivity!r} + {specificity!r})",
            replace_undefined_by,
        )
    corrected = (observed_rate + specificity - 1.0) / youden
    return min(1.0, max(0.0, corrected)) if clip else corrected
