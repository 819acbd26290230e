"""The agreement figures of the compared runs: agreement, Cohen's kappa with its interval,
Gwet's AC1, the confusion matrix, the judge's error rates (binary rubrics), the class
balance, and the judge's self-agreement and position bias where it was measured.

On a binary scale "pass" is the positive class: the false-pass rate is the share of what
humans fail that the judge passes, the false-fail rate the share of what humans pass that
the judge fails. An undefined figure (one class throughout) is None, shown as null.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from judgekit.formats.rubric import Score
from judgekit.formats.verdict import Verdict
from judgekit.stats import (
    cohen_kappa_score,
    confusion,
    gwet_ac1_score,
    judge_error_rates,
    kappa_interval,
    kappa_standard_error,
    percent_agreement,
)
from judgekit.stats.proportions import wilson_interval

__all__ = [
    "NO_ERROR_RATES",
    "POSITIVE",
    "AgreementFigures",
    "Bounds",
    "ClassBalance",
    "Confusion",
    "ErrorRates",
    "IntervalMethod",
    "PositionBias",
    "SelfAgreement",
    "agreement_figures",
    "class_balance",
    "error_rates",
    "number",
    "position_bias",
    "self_agreement",
]

IntervalMethod = Literal["analytic", "bootstrap"]
POSITIVE = "pass"
Bounds = tuple[float | None, float | None]  # an interval; None where undefined
Confusion = dict[str, dict[str, int]]  # human label → judge's score → runs


def number(value: float) -> float | None:
    """``value`` as a float, or None when it is undefined (nan)."""
    return None if math.isnan(value) else float(value)


@dataclass(frozen=True)
class AgreementFigures:
    """How well the judge agrees with the humans' majority labels on the compared runs."""

    agreement: float | None
    kappa: float | None
    kappa_ci: Bounds
    kappa_se: float | None
    confidence: float
    interval_method: IntervalMethod
    ac1: float | None
    weighted_kappa: float | None  # quadratic, likert rubrics only
    confusion: Confusion

    def as_dict(self) -> dict[str, Any]:
        return {
            "agreement": self.agreement,
            "kappa": self.kappa,
            "kappa_ci": list(self.kappa_ci),
            "kappa_se": self.kappa_se,
            "confidence": self.confidence,
            "interval_method": self.interval_method,
            "ac1": self.ac1,
            "weighted_kappa": self.weighted_kappa,
            "confusion": self.confusion,
        }


@dataclass(frozen=True)
class ErrorRates:
    """A binary judge's false-pass and false-fail rates with their intervals."""

    false_pass_rate: float | None
    false_pass_ci: Bounds
    false_fail_rate: float | None
    false_fail_ci: Bounds

    def as_dict(self) -> dict[str, Any]:
        return {
            "false_pass_rate": self.false_pass_rate,
            "false_pass_ci": list(self.false_pass_ci),
            "false_fail_rate": self.false_fail_rate,
            "false_fail_ci": list(self.false_fail_ci),
        }


# The error rates' fields when the rubric is not binary: null.
NO_ERROR_RATES: dict[str, Any] = dict.fromkeys(
    ("false_pass_rate", "false_pass_ci", "false_fail_rate", "false_fail_ci")
)


@dataclass(frozen=True)
class ClassBalance:
    """How many compared runs fall in each class, for the humans and for the judge."""

    human: dict[str, int]
    judge: dict[str, int]

    def as_dict(self) -> dict[str, dict[str, int]]:
        return {"human": self.human, "judge": self.judge}


@dataclass(frozen=True)
class SelfAgreement:
    """How often a judge sampled several times per run agreed with its own majority."""

    mean: float
    runs: int
    samples: int

    def as_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "runs": self.runs, "samples": self.samples}


@dataclass(frozen=True)
class PositionBias:
    """How often a pairwise judge changed its choice when the answers swapped places."""

    checked: int
    flipped: int
    rate: float
    ci: tuple[float, float]

    def as_dict(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "flipped": self.flipped,
            "rate": self.rate,
            "ci": list(self.ci),
        }


def agreement_figures(
    human: list[Score],
    judged: list[Score],
    classes: list[Score],
    *,
    likert: bool,
    confidence: float,
    interval_method: IntervalMethod,
) -> AgreementFigures:
    labels: list[Hashable] = list(classes)
    # An undefined statistic (one class throughout) is reported as null, not warned.
    low, high = kappa_interval(
        human,
        judged,
        labels=labels,
        confidence=confidence,
        method=interval_method,
        replace_undefined_by=math.nan,
    )
    weighted = (
        number(
            cohen_kappa_score(
                human, judged, labels=labels, weights="quadratic", replace_undefined_by=math.nan
            )
        )
        if likert
        else None
    )
    table = confusion(human, judged, labels=labels)
    return AgreementFigures(
        agreement=percent_agreement(human, judged),
        kappa=number(
            cohen_kappa_score(human, judged, labels=labels, replace_undefined_by=math.nan)
        ),
        kappa_ci=(number(low), number(high)),
        kappa_se=number(
            kappa_standard_error(human, judged, labels=labels, replace_undefined_by=math.nan)
        ),
        confidence=confidence,
        interval_method=interval_method,
        ac1=number(gwet_ac1_score(human, judged, labels=labels)),
        weighted_kappa=weighted,
        confusion={str(h): {str(j): count for j, count in row.items()} for h, row in table.items()},
    )


def error_rates(human: list[Score], judged: list[Score], *, confidence: float) -> ErrorRates:
    """The false-pass and false-fail rates of a binary judge; an undefined one is null."""
    rates = judge_error_rates(
        human, judged, pos_label=POSITIVE, confidence=confidence, replace_undefined_by=math.nan
    )
    false_pass, false_fail = rates.false_pass_rate, rates.false_fail_rate
    return ErrorRates(
        false_pass_rate=number(false_pass.estimate),
        false_pass_ci=(number(false_pass.low), number(false_pass.high)),
        false_fail_rate=number(false_fail.estimate),
        false_fail_ci=(number(false_fail.low), number(false_fail.high)),
    )


def class_balance(human: list[Score], judged: list[Score], classes: list[Score]) -> ClassBalance:
    human_counts, judge_counts = Counter(human), Counter(judged)
    return ClassBalance(
        human={str(c): human_counts[c] for c in classes},
        judge={str(c): judge_counts[c] for c in classes},
    )


def self_agreement(verdicts: Sequence[Verdict]) -> SelfAgreement | None:
    """Mean agreement of a judge sampled more than once per run (None when it was not)."""
    sampled = [
        v.agreement
        for v in verdicts
        if v.samples and len(v.samples) > 1 and v.agreement is not None
    ]
    if not sampled:
        return None
    samples = max(len(v.samples or []) for v in verdicts)
    return SelfAgreement(mean=sum(sampled) / len(sampled), runs=len(sampled), samples=samples)


def position_bias(verdicts: Sequence[Verdict]) -> PositionBias | None:
    """How often a pairwise judge changed its choice when the two answers swapped places,
    over the compared verdicts asked in both orders (None when none was)."""
    checked = [v.position_bias for v in verdicts if v.position_bias is not None]
    if not checked:
        return None
    flipped = sum(checked)
    return PositionBias(
        checked=len(checked),
        flipped=flipped,
        rate=flipped / len(checked),
        ci=wilson_interval(flipped, len(checked)),
    )
