"""Selective judging on labelled verdicts: how many of them a confidence threshold keeps
while agreement with the humans stays guaranteed (see :mod:`judgekit.stats.selective`).

A verdict's confidence is its ``confidence`` (the agreement of its samples, or the
probability of its score from log-probabilities); an older verdict sampled several times
without one has its ``agreement`` instead; a verdict with neither is never kept. The report
gives, for each alpha of :data:`ALPHAS` at the policy's delta (0.1 by default), the
threshold fixed-sequence testing chooses, the share of compared runs it keeps (coverage),
the agreement measured on them and the agreement guaranteed; the curve of coverage against
guaranteed agreement, one point per threshold; and, when the rubric's policy is selective,
the same at its alpha, with the promotion criterion ``selective`` (met when a threshold
keeps some verdicts).

When the policy is selective, the ``min_kappa`` criterion is measured on the kept verdicts
only: they are the verdicts that will count once promoted, and the abstained ones go to
people.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from judgekit._util.number_format import rate, setting, threshold
from judgekit.calibration.agreement_statistics import IntervalMethod, agreement_figures
from judgekit.calibration.criteria import Criterion
from judgekit.formats.rubric import PromotionPolicy, Score
from judgekit.formats.verdict import Verdict
from judgekit.stats.selective import (
    CurvePoint,
    SelectiveThreshold,
    coverage_curve,
    fixed_sequence_threshold,
)

__all__ = [
    "ALPHAS",
    "DEFAULT_DELTA",
    "SelectiveCriterion",
    "SelectiveFigures",
    "SelectiveRow",
    "guarantee_sentence",
    "kappa_on_kept",
    "selective_criterion",
    "selective_figures",
    "selective_promotion_line",
    "verdict_confidence",
]

ALPHAS = (0.05, 0.1, 0.15, 0.2, 0.3)
DEFAULT_DELTA = 0.1


def verdict_confidence(verdict: Verdict) -> float | None:
    """The verdict's confidence; for one sampled several times without it, the samples'
    agreement; None when unknown."""
    if verdict.confidence is not None:
        return verdict.confidence
    if verdict.samples is not None and len(verdict.samples) > 1:
        return verdict.agreement
    return None


@dataclass(frozen=True)
class SelectiveRow:
    """The threshold chosen at one alpha, and what it keeps."""

    alpha: float
    delta: float
    n: int
    threshold: float | None
    kept: int
    coverage: float
    agreement_on_kept: float | None
    guaranteed_agreement: float | None

    @classmethod
    def of(cls, chosen: SelectiveThreshold) -> SelectiveRow:
        step = chosen.chosen
        return cls(
            alpha=chosen.alpha,
            delta=chosen.delta,
            n=chosen.n,
            threshold=chosen.threshold,
            kept=0 if step is None else step.kept,
            coverage=chosen.coverage,
            agreement_on_kept=chosen.agreement_on_kept,
            guaranteed_agreement=chosen.guaranteed_agreement,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha,
            "delta": self.delta,
            "n": self.n,
            "threshold": self.threshold,
            "kept": self.kept,
            "coverage": self.coverage,
            "agreement_on_kept": self.agreement_on_kept,
            "guaranteed_agreement": self.guaranteed_agreement,
        }


@dataclass(frozen=True)
class SelectiveFigures:
    """Coverage against guaranteed agreement on the compared runs (see the module)."""

    delta: float
    n: int
    n_with_confidence: int
    rows: list[SelectiveRow]  # one per alpha of ALPHAS
    curve: list[CurvePoint]
    policy: SelectiveRow | None  # at the selective policy's alpha and delta, when set
    kept_runs: list[str]  # the runs the policy's threshold keeps (empty without one)

    def as_dict(self) -> dict[str, Any]:
        return {
            "delta": self.delta,
            "n": self.n,
            "n_with_confidence": self.n_with_confidence,
            "by_alpha": [row.as_dict() for row in self.rows],
            "curve": [point.as_dict() for point in self.curve],
            "policy": None if self.policy is None else self.policy.as_dict(),
        }


def selective_figures(
    runs: Sequence[str],
    verdicts: Sequence[Verdict],
    human: Sequence[Score],
    judge: Sequence[Score],
    policy: PromotionPolicy,
) -> SelectiveFigures | None:
    """The figures on the compared runs (each with its verdict, majority label and score);
    None when no verdict has a confidence."""
    confidences = [verdict_confidence(v) for v in verdicts]
    known = sum(c is not None for c in confidences)
    if not known:
        return None
    correct = [h == j for h, j in zip(human, judge, strict=True)]
    delta = policy.selective.delta if policy.selective is not None else DEFAULT_DELTA
    rows = [
        SelectiveRow.of(fixed_sequence_threshold(confidences, correct, alpha=a, delta=delta))
        for a in ALPHAS
    ]
    at_policy: SelectiveRow | None = None
    kept: list[str] = []
    if policy.selective is not None:
        chosen = fixed_sequence_threshold(
            confidences, correct, alpha=policy.selective.alpha, delta=policy.selective.delta
        )
        at_policy = SelectiveRow.of(chosen)
        bar = chosen.threshold
        if bar is not None:
            kept = [r for r, c in zip(runs, confidences, strict=True) if c is not None and c >= bar]
    return SelectiveFigures(
        delta=delta,
        n=len(runs),
        n_with_confidence=known,
        rows=rows,
        curve=coverage_curve(confidences, correct, delta=delta),
        policy=at_policy,
        kept_runs=kept,
    )


def guarantee_sentence(row: SelectiveRow) -> str:
    """``coverage 0.82 (threshold 0.8, agreement on kept ≥ 0.90 with probability 0.9)``, or
    why no threshold keeps the guarantee."""
    floor, probability = rate(1 - row.alpha), setting(round(1 - row.delta, 12))
    if row.threshold is None:
        return (
            f"no threshold keeps agreement ≥ {floor} at δ = {setting(row.delta)} "
            f"(on {row.n} labelled verdicts)"
        )
    return (
        f"coverage {rate(row.coverage)} (threshold {threshold(row.threshold)}, agreement on "
        f"kept ≥ {floor} with probability {probability})"
    )


def selective_promotion_line(report: _HasSelective) -> str | None:
    """``promoted at α = 0.1: coverage 0.82 (threshold 0.8, agreement on kept ≥ 0.90 with
    probability 0.9)`` for a selective promotion (None otherwise)."""
    row = None if report.selective is None else report.selective.policy
    if row is None or row.threshold is None:
        return None
    return f"promoted at α = {setting(row.alpha)}: {guarantee_sentence(row)}"


class _HasSelective(Protocol):
    @property
    def selective(self) -> SelectiveFigures | None: ...


@dataclass(frozen=True)
class SelectiveCriterion(Criterion):
    """``selective``: met when a threshold keeps some verdicts at the policy's alpha."""

    sentence: str = ""

    @property
    def short_by(self) -> float | None:
        return None

    def explain(self) -> str:
        return f"{self.name}: at α = {setting(self.bar)}: {self.sentence}"


def selective_criterion(
    policy: PromotionPolicy, figures: SelectiveFigures | None, n: int
) -> list[Criterion]:
    """The ``selective`` criterion when the policy is selective (none otherwise)."""
    selective = policy.selective
    if selective is None:
        return []
    if figures is None or figures.policy is None:
        sentence = f"no verdict of the {n} compared has a confidence (judge with samples > 1)"
        return [SelectiveCriterion("selective", None, selective.alpha, False, "coverage", sentence)]
    row = figures.policy
    met = row.threshold is not None and row.coverage > 0
    return [
        SelectiveCriterion(
            "selective", row.coverage, selective.alpha, met, "coverage", guarantee_sentence(row)
        )
    ]


def kappa_on_kept(
    criteria: list[Criterion],
    figures: SelectiveFigures | None,
    runs: Sequence[str],
    human: Sequence[Score],
    judge: Sequence[Score],
    classes: list[Score],
    *,
    policy: PromotionPolicy,
    likert: bool,
    interval_method: IntervalMethod,
) -> list[Criterion]:
    """``criteria`` with ``min_kappa`` measured on the kept verdicts, when the policy is
    selective (unchanged otherwise; unmeasured when nothing is kept)."""
    if policy.selective is None:
        return criteria
    kept = set(figures.kept_runs) if figures is not None else set()
    index = [i for i, run in enumerate(runs) if run in kept]
    low: float | None = None
    if index:
        on_kept = agreement_figures(
            [human[i] for i in index],
            [judge[i] for i in index],
            classes,
            likert=likert,
            confidence=policy.confidence,
            interval_method=interval_method,
        )
        low = on_kept.kappa_ci[0]
    return [
        dataclasses.replace(
            c,
            value=low,
            met=low is not None and low >= c.bar,
            what=f"{c.what} on the {len(index)} kept verdicts",
        )
        if c.name == "min_kappa"
        else c
        for c in criteria
    ]
