"""The pass rate over every scored verdict of the version (labelled runs or not), raw and
corrected for the judge's errors measured on the labelled runs (binary rubrics).

A correction can leave [0, 1] (few labels, or an observed rate past what the judge's error
rates allow): it is clipped to [0, 1] and marked ``clipped``, which the report says."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from judgekit.calibration.agreement_statistics import POSITIVE, ErrorRates, number
from judgekit.calibration.join import Pairs
from judgekit.calibration.selection import verdict_score
from judgekit.formats.rubric import Rubric
from judgekit.stats import BoundedRate, ppi_rate_interval, rogan_gladen
from judgekit.stats.bounded import clip_rate

__all__ = ["PassRates", "pass_rates"]


@dataclass(frozen=True)
class PassRates:
    """The pass rates of a binary judge over every scored verdict of the version.

    * ``raw``: the share of scored verdicts that pass (``n_scored`` of them);
    * ``corrected``: Rogan–Gladen, with sensitivity = 1 - false-fail rate and specificity =
      1 - false-pass rate measured on the compared runs (None when undefined), clipped to
      [0, 1] (``corrected_clipped`` when it had to be);
    * ``ppi``: the prediction-powered estimate of the human pass rate and its interval, from
      the compared runs (human and judge) and the judge's verdicts on the ``n_unlabelled``
      other scored runs (those with no usable label: unlabelled, or tied), clipped to [0, 1]
      (its ``clipped`` when it had to be).
    """

    raw: float | None
    n_scored: int
    sensitivity: float | None
    specificity: float | None
    corrected: float | None
    ppi: BoundedRate | None
    n_unlabelled: int
    corrected_clipped: bool = False

    @staticmethod
    def empty() -> PassRates:
        return PassRates(None, 0, None, None, None, None, 0)

    def as_dict(self) -> dict[str, Any]:
        clipped = None if self.corrected is None else self.corrected_clipped
        ppi = None
        if self.ppi is not None:
            ppi = {
                "estimate": self.ppi.estimate,
                "low": self.ppi.low,
                "high": self.ppi.high,
                "clipped": self.ppi.clipped,
            }
        return {
            # n_scored and n_unlabelled are the report's counts (n_scored_verdicts), on every
            # scale: not repeated here, where a non-binary rubric would show them as 0.
            "raw_pass_rate": self.raw,
            "sensitivity": self.sensitivity,
            "specificity": self.specificity,
            "corrected_pass_rate": self.corrected,
            "corrected_pass_rate_clipped": clipped,
            "ppi_pass_rate": ppi,
        }


def pass_rates(rubric: Rubric, pairs: Pairs, rates: ErrorRates, *, confidence: float) -> PassRates:
    """Raw, Rogan–Gladen and prediction-powered pass rates over every scored verdict."""
    labelled = set(pairs.runs)
    scores = {run: verdict_score(rubric, v) for run, v in pairs.selection.current.items()}
    scored = [score for score in scores.values() if score is not None]
    unlabelled = [
        float(score == POSITIVE)
        for run, score in sorted(scores.items())
        if score is not None and run not in labelled
    ]
    raw = sum(s == POSITIVE for s in scored) / len(scored)  # compared runs are scored: not 0
    fpr, ffr = rates.false_pass_rate, rates.false_fail_rate
    sensitivity = None if ffr is None else 1.0 - ffr
    specificity = None if fpr is None else 1.0 - fpr
    corrected, corrected_clipped = None, False
    ppi: BoundedRate | None = None
    # An undefined figure is reported as null.
    if sensitivity is not None and specificity is not None:
        unclipped = rogan_gladen(
            raw, sensitivity, specificity, clip=False, replace_undefined_by=math.nan
        )
        value, corrected_clipped = clip_rate(unclipped)
        corrected = number(value)
    if unlabelled:
        bounded = ppi_rate_interval(
            [float(h == POSITIVE) for h in pairs.human],
            [float(j == POSITIVE) for j in pairs.judge],
            unlabelled,
            confidence=confidence,
            replace_undefined_by=math.nan,
        )
        if not math.isnan(bounded.estimate):
            ppi = bounded
    return PassRates(
        raw=raw,
        n_scored=len(scored),
        sensitivity=sensitivity,
        specificity=specificity,
        corrected=corrected,
        ppi=ppi,
        n_unlabelled=len(unlabelled),
        corrected_clipped=corrected_clipped,
    )
