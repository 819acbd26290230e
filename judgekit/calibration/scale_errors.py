"""Error figures beyond kappa for the scales where kappa says too little: on a Likert scale
how far (mean absolute error) and which way (mean signed error, judge − human) the judge's
scores are off, with t intervals; on a choices or pairwise (A/B/tie) scale each class's
precision, recall, F1 and support (the human label is the truth, the judge's choice the
prediction) and their macro averages.

An undefined figure is null, never a silent 0: a class the judge never chose has no
precision, a class no human label is in has no recall, and a class that occurs in neither has
no F1 either (scikit-learn's ``zero_division=nan``). A macro average is over the classes
where its figure is defined, as scikit-learn averages with ``zero_division=nan``; counting an
undefined class as 0 (scikit-learn's default) would drag the average down for a class that
never occurred. Binary rubrics have their false-pass and false-fail rates instead.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from judgekit.formats.rubric import Score
from judgekit.stats.scale_errors import MeanWithInterval, likert_errors, per_class_scores

__all__ = ["ChoiceScores", "ClassFigures", "LikertFigures", "ScaleErrors", "scale_errors"]


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
class ClassFigures:
    """One class's precision, recall and F1 (None where undefined), how many runs humans put
    in it (``support``) and how many the judge did (``predicted``)."""

    precision: float | None
    recall: float | None
    f1: float | None
    support: int
    predicted: int

    def undefined_reason(self) -> str | None:
        """Why a figure of this class is undefined (None when all three are defined)."""
        if self.support == 0 and self.predicted == 0:
            return (
                "precision, recall and F1 undefined (neither a human label nor the judge's choice)"
            )
        if self.predicted == 0:
            return "precision undefined (the judge never chose it)"
        if self.support == 0:
            return "recall undefined (no human label in it)"
        return None

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "support": self.support,
            "predicted": self.predicted,
        }


@dataclass(frozen=True)
class ChoiceScores:
    """Per class (in the scale's order) its figures; and their macro averages, each over the
    classes where it is defined (None when it is defined for none)."""

    per_class: dict[str, ClassFigures]
    macro_precision: float | None
    macro_recall: float | None
    macro_f1: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "per_class": {name: figures.as_dict() for name, figures in self.per_class.items()},
            "macro": {
                "precision": self.macro_precision,
                "recall": self.macro_recall,
                "f1": self.macro_f1,
            },
        }


ScaleErrors = LikertFigures | ChoiceScores


def scale_errors(
    kind: str, human: list[Score], judged: list[Score], classes: list[Score], *, confidence: float
) -> ScaleErrors | None:
    """The figures for a Likert, choices or pairwise rubric; None for a binary one (its
    false-pass and false-fail rates are reported apart)."""
    if kind == "likert":
        errors = likert_errors(
            [float(h) for h in human],
            [float(j) for j in judged],
            confidence=confidence,
            replace_undefined_by=math.nan,
        )
        return LikertFigures(errors.mean_absolute_error, errors.mean_signed_error, confidence)
    if kind not in ("choices", "pairwise"):
        return None
    scores = per_class_scores(human, judged, labels=classes, replace_undefined_by=math.nan)
    chosen: Counter[Hashable] = Counter(judged)
    return ChoiceScores(
        per_class={
            str(label): ClassFigures(
                precision=_number(s.precision),
                recall=_number(s.recall),
                f1=_number(s.f1),
                support=s.support,
                predicted=chosen[label],
            )
            for label, s in scores.classes.items()
        },
        macro_precision=_number(scores.macro_precision),
        macro_recall=_number(scores.macro_recall),
        macro_f1=_number(scores.macro_f1),
    )
