"""A candidate's figures on dev: its kappa with the humans, and its gain over the current
rubric on the same runs with a paired bootstrap interval
(:func:`judgekit.stats.paired_kappa_differences`: both judges' kappas on the same resampled
runs)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgekit.alignment.dev_set import DevItem
from judgekit.calibration.agreement_statistics import number
from judgekit.formats.rubric import Rubric, Score, scale_values
from judgekit.stats import cohen_kappa_score, kappa_interval, paired_kappa_differences

__all__ = ["N_RESAMPLES", "CandidateResult", "candidate_result", "current_result"]

N_RESAMPLES = 2000

Interval = tuple[float | None, float | None]


@dataclass(frozen=True)
class CandidateResult:
    """One candidate on dev: ``n`` runs both it and the current rubric scored, its kappa
    with its interval, and its gain over the current rubric with the paired interval; or
    why it was dropped."""

    name: str
    examples_added: int
    n: int = 0
    kappa: float | None = None
    kappa_ci: Interval = (None, None)
    gain: float | None = None
    gain_ci: Interval = (None, None)
    dropped: str | None = None

    @property
    def significant(self) -> bool:
        """Whether the whole interval of the gain is above zero."""
        return self.gain_ci[0] is not None and self.gain_ci[0] > 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "examples_added": self.examples_added,
            "n": self.n,
            "kappa": self.kappa,
            "kappa_ci": list(self.kappa_ci),
            "gain": self.gain,
            "gain_ci": list(self.gain_ci),
            "significant": self.significant,
            "dropped": self.dropped,
        }


def _kappa(
    rubric: Rubric, human: list[Score], judge: list[Score], confidence: float
) -> tuple[float | None, Interval]:
    classes = list(scale_values(rubric.scale))
    kappa = cohen_kappa_score(human, judge, labels=classes, replace_undefined_by=math.nan)
    low, high = kappa_interval(
        human, judge, labels=classes, confidence=confidence, replace_undefined_by=math.nan
    )
    return number(kappa), (number(low), number(high))


def current_result(
    rubric: Rubric, items: Sequence[DevItem], current: Mapping[str, Score | None]
) -> CandidateResult:
    """The current rubric on the dev runs it scored."""
    human: list[Score] = []
    judge: list[Score] = []
    for item in items:
        score = current.get(item.run_id)
        if score is not None:
            human.append(item.human)
            judge.append(score)
    if not judge:
        return CandidateResult("current", 0)
    kappa, ci = _kappa(rubric, human, judge, rubric.promotion.confidence)
    return CandidateResult("current", 0, n=len(judge), kappa=kappa, kappa_ci=ci)


def candidate_result(
    rubric: Rubric,
    name: str,
    examples_added: int,
    items: Sequence[DevItem],
    current: Mapping[str, Score | None],
    candidate: Mapping[str, Score | None],
    *,
    seed: int,
) -> CandidateResult:
    """The candidate against the current rubric on the dev runs both scored."""
    human: list[Score] = []
    before: list[Score] = []
    after: list[Score] = []
    for item in items:
        old, new = current.get(item.run_id), candidate.get(item.run_id)
        if old is not None and new is not None:
            human.append(item.human)
            before.append(old)
            after.append(new)
    if not human:
        return CandidateResult(name, examples_added)
    confidence = rubric.promotion.confidence
    kappa, ci = _kappa(rubric, human, after, confidence)
    base = cohen_kappa_score(
        human, before, labels=list(scale_values(rubric.scale)), replace_undefined_by=math.nan
    )
    differences = paired_kappa_differences(
        human,
        before,
        after,
        labels=list(scale_values(rubric.scale)),
        n_resamples=N_RESAMPLES,
        seed=seed,
        replace_undefined_by=math.nan,
    )
    finite = differences[~np.isnan(differences)]
    gain_ci: Interval = (None, None)
    if finite.size and kappa is not None and not math.isnan(base):
        tail = (1.0 - confidence) / 2.0 * 100.0
        gain_ci = (float(np.percentile(finite, tail)), float(np.percentile(finite, 100 - tail)))
    gain = None if kappa is None or math.isnan(base) else kappa - base
    return CandidateResult(name, examples_added, len(human), kappa, ci, gain, gain_ci)
