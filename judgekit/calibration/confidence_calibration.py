"""Whether the judge's confidence means what it says, on the compared runs.

A verdict's confidence (:func:`~judgekit.calibration.selective.verdict_confidence`) is read
as the judge's probability that its verdict is right, and the outcome is whether it was:
the verdict's score equals the human label counted. On the compared runs whose verdict has a
confidence, :func:`judgekit.stats.calibration_errors` gives the expected calibration error
(ECE: 10 equal-width bins), the Brier score, their bootstrap intervals at the policy's
confidence (2000 resamples of the runs, seed 0) and the reliability curve; overall, and for
each score of the scale on the verdicts that gave it. Verdicts without a confidence are left
out and counted; where none is left, the figures are absent with the reason, never 0.

The promotion policy's ``max_ece`` bounds the upper bound of the overall ECE interval, on
the held-out labels ``promote`` measures; with no confidence to measure it is not met.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judgekit._util.number_format import confidence as percent
from judgekit.calibration.criteria import Criterion
from judgekit.formats.rubric import PromotionPolicy, Score
from judgekit.stats.reliability import (
    DEFAULT_BINS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    CalibrationErrors,
    calibration_errors,
)

__all__ = [
    "NO_CONFIDENCE",
    "ConfidenceCalibration",
    "ConfidenceFigures",
    "confidence_calibration",
    "ece_criterion",
]

NO_CONFIDENCE = (
    "no compared verdict has a confidence: judge with samples > 1, or judge.confidence: logprobs"
)


@dataclass(frozen=True)
class ConfidenceFigures:
    """ECE, Brier and the curve on some verdicts with a confidence, or why there are none."""

    errors: CalibrationErrors | None
    absent: str | None  # why there are no figures (None when there are)

    @property
    def n(self) -> int:
        return 0 if self.errors is None else self.errors.n

    def as_dict(self) -> dict[str, Any]:
        if self.errors is None:
            empty: dict[str, Any] = {
                "ece": None,
                "ece_ci": None,
                "brier": None,
                "brier_ci": None,
                "bins": [],
            }
            return {"n": 0, **empty, "absent": self.absent}
        return {**self.errors.as_dict(), "absent": None}


@dataclass(frozen=True)
class ConfidenceCalibration:
    """The judge's confidence against whether it agreed, overall and by the score given."""

    n: int  # runs compared
    n_with_confidence: int
    n_bins: int
    confidence: float  # the intervals' level
    n_resamples: int
    seed: int
    overall: ConfidenceFigures
    by_score: dict[str, ConfidenceFigures]  # each score of the scale, in its order

    def as_dict(self) -> dict[str, Any]:
        return {
            "n_compared": self.n,
            "n_with_confidence": self.n_with_confidence,
            "n_bins": self.n_bins,
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            **self.overall.as_dict(),  # its n: the verdicts with a confidence
            "by_score": {score: f.as_dict() for score, f in self.by_score.items()},
        }


def _figures(
    outcomes: list[bool], probabilities: list[float], absent: str, level: float
) -> ConfidenceFigures:
    if not probabilities:
        return ConfidenceFigures(None, absent)
    errors = calibration_errors(
        outcomes,
        probabilities,
        n_bins=DEFAULT_BINS,
        confidence=level,
        n_resamples=DEFAULT_RESAMPLES,
        seed=DEFAULT_SEED,
    )
    return ConfidenceFigures(errors, None)


def confidence_calibration(
    confidences: Sequence[float | None],
    human: Sequence[Score],
    judge: Sequence[Score],
    classes: Sequence[Score],
    *,
    confidence: float,
) -> ConfidenceCalibration:
    """The figures of the module on the compared runs: each one's verdict confidence (None:
    none), human label counted and judge's score, in the report's order."""
    known = [
        (c, j, h == j) for c, h, j in zip(confidences, human, judge, strict=True) if c is not None
    ]
    overall = _figures(
        [r for _, _, r in known], [c for c, _, _ in known], NO_CONFIDENCE, confidence
    )
    by_score = {}
    for score in classes:
        given = [(c, right) for c, j, right in known if j == score]
        why = f"no compared verdict that gave {score} has a confidence"
        by_score[str(score)] = _figures(
            [r for _, r in given], [c for c, _ in given], why, confidence
        )
    return ConfidenceCalibration(
        n=len(human),
        n_with_confidence=len(known),
        n_bins=DEFAULT_BINS,
        confidence=confidence,
        n_resamples=DEFAULT_RESAMPLES,
        seed=DEFAULT_SEED,
        overall=overall,
        by_score=by_score,
    )


def ece_criterion(policy: PromotionPolicy, figures: ConfidenceCalibration) -> list[Criterion]:
    """``max_ece`` when the policy sets it: the upper bound of the overall ECE interval at
    or below the bar; not met when no compared verdict has a confidence."""
    if policy.max_ece is None:
        return []
    errors = figures.overall.errors
    high = None if errors is None else errors.ece_ci[1]
    return [
        Criterion(
            "max_ece",
            high,
            policy.max_ece,
            high is not None and high <= policy.max_ece,
            f"upper bound of the {percent(figures.confidence)} ECE interval",
            at_most=True,
            missing=NO_CONFIDENCE,
        )
    ]
