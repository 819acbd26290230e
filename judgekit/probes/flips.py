"""How often a judge's verdict changed between an original input and its perturbed twin.

The flip rate is the share of runs whose two verdicts differ, over the runs where both were
scored (a run with an unscored verdict on either side is counted apart, never as a flip),
with a Wilson interval. The flips are split by direction (``fail→pass``, ``A→B``, …); on a
Likert scale the mean shift (perturbed − original) is given with its t interval, since a
one-point drift on every run is a bias even when it rarely crosses a class.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judgekit.formats.rubric import Score
from judgekit.formats.verdict import Verdict
from judgekit.stats.proportions import wilson_interval
from judgekit.stats.scale_errors import likert_errors

__all__ = ["FlipFigures", "VerdictPair", "flip_figures"]


@dataclass(frozen=True)
class VerdictPair:
    """A run's verdict on the original input, and the perturbed verdict's score read as on
    the original (a swapped pair's choice named back)."""

    original: Verdict
    perturbed: Verdict
    perturbed_score: Score | None


@dataclass(frozen=True)
class FlipFigures:
    """The flip rate with its interval, the flips by direction, and the runs left out."""

    n_runs: int
    n_compared: int
    n_not_scored: int  # runs with an unscored verdict on either side
    flipped: int
    rate: float | None
    ci: tuple[float | None, float | None]
    confidence: float
    directions: dict[str, int]
    mean_shift: float | None  # likert only: perturbed − original
    mean_shift_ci: tuple[float | None, float | None] | None
    flipped_runs: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "n_runs": self.n_runs,
            "n_compared": self.n_compared,
            "n_not_scored": self.n_not_scored,
            "flipped": self.flipped,
            "directions": self.directions,
            "mean_shift": self.mean_shift,
            "mean_shift_ci": None if self.mean_shift_ci is None else list(self.mean_shift_ci),
            "flipped_runs": self.flipped_runs,
        }


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def flip_figures(pairs: Sequence[VerdictPair], *, likert: bool, confidence: float) -> FlipFigures:
    """The figures of ``pairs`` (one per run probed)."""
    compared = [
        p
        for p in pairs
        # an abstained verdict keeps its score: the probe reads the judge, not the policy
        if p.original.status != "unscored"
        and p.perturbed.status != "unscored"
        and p.perturbed_score is not None
    ]
    flips = [p for p in compared if str(p.original.score) != str(p.perturbed_score)]
    directions = Counter(f"{p.original.score}→{p.perturbed_score}" for p in flips)
    n = len(compared)
    low, high = wilson_interval(len(flips), n, confidence=confidence, replace_undefined_by=math.nan)
    shift, shift_ci = None, None
    if likert and n:
        errors = likert_errors(
            [float(p.original.score) for p in compared],
            [float(p.perturbed_score) for p in compared],  # type: ignore[arg-type]
            confidence=confidence,
            replace_undefined_by=math.nan,
        )
        moved = errors.mean_signed_error
        shift, shift_ci = _number(moved.mean), (_number(moved.low), _number(moved.high))
    return FlipFigures(
        n_runs=len(pairs),
        n_compared=n,
        n_not_scored=len(pairs) - n,
        flipped=len(flips),
        rate=len(flips) / n if n else None,
        ci=(_number(low), _number(high)),
        confidence=confidence,
        directions=dict(sorted(directions.items())),
        mean_shift=shift,
        mean_shift_ci=shift_ci,
        flipped_runs=[p.original.run_id for p in flips],
    )
