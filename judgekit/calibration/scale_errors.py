"""Error figures beyond kappa for the scales where kappa says too little: on a Likert scale
how far (mean absolute error) and which way (mean signed error, judge − human) the judge's
scores are off, with t intervals; on a choices scale each class's precision, recall and
F1 (the human label is the truth) and their macro averages. Undefined figures are null."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from judgekit.formats.rubric import Score
from judgekit.stats.scale_errors import MeanWithInterval, likert_errors, per_class_scores

__all__ = ["ChoiceScores", "LikertFigures", "ScaleErrors", "scale_errors"]


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


@dataclass(frozen=True)
class LikertFigures:
    """Mean absolute and mean signed error (judge − human) with their t intervals."""

    mean_absolute_error: MeanWithInterval
    mean_signed_error: MeanWithInterval
    confidence: float

    def as_dict(self) -> dict[str, Any]:
        def figure(value: MeanWithInterval) -> dict[str, Any]:
            return {
                "mean": _number(value.mean),
                "ci": [_number(value.low), _number(value.high)],
            }

        return {
            "mean_absolute_error": figure(self.mean_absolute_error),
            "mean_signed_error": figure(self.mean_signed_error),
            "confidence": self.confidence,
            "interval_method": "t",
        }


@dataclass(frozen=True)
class ChoiceScores:
    """Per class (in the scale's order): precision, recall, F1, support; and macro averages."""

    per_class: dict[str, dict[str, float | int | None]]
    macro: dict[str, float | None]

    def as_dict(self) -> dict[str, Any]:
        return {"per_class": self.per_class, "macro": self.macro}


ScaleErrors = LikertFigures | ChoiceScores


def scale_errors(
    kind: str, human: list[Score], judged: list[Score], classes: list[Score], *, confidence: float
) -> ScaleErrors | None:
    """The figures for a Likert or choices rubric; None for binary and pairwise ones (their
    error rates and position bias are reported apart)."""
    if kind == "likert":
        errors = likert_errors(
            [float(h) for h in human],
            [float(j) for j in judged],
            confidence=confidence,
            replace_undefined_by=math.nan,
        )
        return LikertFigures(errors.mean_absolute_error, errors.mean_signed_error, confidence)
    if kind != "choices":
        return None
    scores = per_class_scores(human, judged, labels=classes, replace_undefined_by=math.nan)
    return ChoiceScores(
        per_class={
            str(label): {
                "precision": _number(s.precision),
                "recall": _number(s.recall),
                "f1": _number(s.f1),
                "support": s.support,
            }
            for label, s in scores.classes.items()
        },
        macro={
            "precision": _number(scores.macro_precision),
            "recall": _number(scores.macro_recall),
            "f1": _number(scores.macro_f1),
        },
    )
