"""A promotion record's figures and criteria computed again from its evidence (the compared
test runs it lists), with the same functions ``judgekit promote`` used, and where they
differ from what the record says.

Only the runs compared are recomputed: the figures of everything the join left out
(``n_unscored``, ``n_tied``) are not in the evidence, and are not checked."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit._util.number_format import statistic, threshold
from judgekit.calibration.agreement_statistics import (
    AgreementFigures,
    IntervalMethod,
    agreement_figures,
    class_balance,
    error_rates,
)
from judgekit.calibration.confidence_calibration import (
    ConfidenceCalibration,
    confidence_calibration,
    ece_criterion,
)
from judgekit.calibration.criteria import Criterion, criteria, flip_rate_criteria
from judgekit.calibration.selective import (
    SelectiveFigures,
    SelectiveRow,
    kappa_on_kept,
    selective_criterion,
)
from judgekit.formats.probe_file import load_probes, probes_path
from judgekit.formats.promotion import ComparedPair, PromotionRecord
from judgekit.formats.rubric import PromotionPolicy, Rubric, Score, scale_values
from judgekit.stats.selective import fixed_sequence_threshold

__all__ = ["TOLERANCE", "Evidence", "criteria_problems", "figure_problems"]

TOLERANCE = 1e-9  # a recomputed figure equals the recorded one within this


@dataclass(frozen=True)
class Evidence:
    """A record's compared runs, decoded, on the rubric's scale."""

    runs: list[str]
    human: list[Score]
    judge: list[Score]
    confidences: list[float | None]
    classes: list[Score]
    likert: bool
    interval_method: IntervalMethod

    @staticmethod
    def of(pairs: Sequence[ComparedPair], rubric: Rubric, method: IntervalMethod) -> Evidence:
        return Evidence(
            runs=[p.run_id for p in pairs],
            human=[p.human for p in pairs],
            judge=[p.judge for p in pairs],
            confidences=[p.confidence for p in pairs],
            classes=list(scale_values(rubric.scale)),
            likert=rubric.kind == "likert",
            interval_method=method,
        )

    @property
    def off_scale(self) -> list[Score]:
        """The labels and scores of the evidence that are not on the rubric's scale."""
        return [s for s in dict.fromkeys([*self.human, *self.judge]) if s not in self.classes]

    def calibration(self, confidence: float) -> ConfidenceCalibration:
        """The confidences against whether the judge agreed, as the report computes it."""
        return confidence_calibration(
            self.confidences, self.human, self.judge, self.classes, confidence=confidence
        )

    def figures(self, confidence: float) -> AgreementFigures:
        return agreement_figures(
            self.human,
            self.judge,
            self.classes,
            likert=self.likert,
            confidence=confidence,
            interval_method=self.interval_method,
        )


def figure_problems(
    record: PromotionRecord, evidence: Evidence, policy: PromotionPolicy
) -> list[str]:
    """Each figure of ``record`` that its evidence does not give again."""
    n = len(evidence.runs)
    problems = [] if record.n == n else [f"n {record.n} in the record, {n} pairs in its evidence"]
    figures = evidence.figures(policy.confidence)
    recorded_ci = record.kappa_ci or [None, None]
    measured: list[tuple[str, Any, float | None]] = [
        ("agreement", record.agreement, figures.agreement),
        ("kappa", record.kappa, figures.kappa),
        ("kappa interval's lower bound", recorded_ci[0], figures.kappa_ci[0]),
        ("kappa interval's upper bound", recorded_ci[-1], figures.kappa_ci[1]),
        ("AC1", record.ac1, figures.ac1),
    ]
    if "pass" in evidence.classes and len(evidence.classes) == 2:
        rates = error_rates(evidence.human, evidence.judge, confidence=policy.confidence)
        measured += [
            ("false-pass rate", record.false_pass_rate, rates.false_pass_rate),
            ("false-fail rate", record.false_fail_rate, rates.false_fail_rate),
        ]
    for name, recorded, now in measured:
        if not _same(recorded, now):
            problems.append(
                f"{name} {_shown(recorded)} in the record, {statistic(now)} recomputed from "
                f"its {n} pairs"
            )
    if record.confusion != figures.confusion:
        problems.append(f"its confusion matrix is not that of its {n} pairs")
    balance = class_balance(evidence.human, evidence.judge, evidence.classes).as_dict()
    if record.class_balance != balance:
        problems.append(f"its class balance is not that of its {n} pairs")
    return problems + _calibration_problems(record, evidence, policy)


def _calibration_problems(
    record: PromotionRecord, evidence: Evidence, policy: PromotionPolicy
) -> list[str]:
    """The recorded ECE and Brier score against those of the evidence's confidences (a
    record without them, written before judgekit measured them, has none to check; a
    ``max_ece`` criterion is recomputed either way)."""
    recorded = record.confidence_calibration
    if recorded is None:
        return []
    errors = evidence.calibration(policy.confidence).overall.errors
    if errors is None:
        return ["its confidence_calibration is not of its evidence, which has no confidence"]
    none: list[float | None] = [None, None]
    ece_ci: list[float | None] = list(recorded.ece_ci or none)
    brier_ci: list[float | None] = list(recorded.brier_ci or none)
    measured: list[tuple[str, Any, float | None]] = [
        ("ECE", recorded.ece, errors.ece),
        ("ECE interval's lower bound", ece_ci[0], errors.ece_ci[0]),
        ("ECE interval's upper bound", ece_ci[-1], errors.ece_ci[1]),
        ("Brier score", recorded.brier, errors.brier),
        ("Brier interval's lower bound", brier_ci[0], errors.brier_ci[0]),
        ("Brier interval's upper bound", brier_ci[-1], errors.brier_ci[1]),
    ]
    problems = [
        f"{name} {_shown(kept)} in the record, {statistic(now)} recomputed from the "
        f"{errors.n} confidences of its evidence"
        for name, kept, now in measured
        if not _same(kept, now)
    ]
    if recorded.n != errors.n:
        problems.append(
            f"confidence_calibration.n {recorded.n} in the record, {errors.n} confidences in "
            "its evidence"
        )
    return problems


def criteria_problems(
    record: PromotionRecord,
    evidence: Evidence,
    *,
    policy: PromotionPolicy,
    current: PromotionPolicy,
    rubric: Rubric,
    rubrics_dir: Path,
) -> list[str]:
    """Each criterion the record says is not met, or whose value its evidence does not give
    again; each not met on the evidence under the record's policy; and each not met under
    the rubric's current ``policy``."""
    version = record.rubric_version or ""
    found = recomputed_criteria(evidence, policy, rubric, rubrics_dir, version=version)
    problems = []
    recorded = record.criteria or {}
    for name, entry in recorded.items():
        if entry.met is not True:
            problems.append(f"the record says {name} is not met")
    for criterion in found:
        kept = recorded.get(criterion.name)
        if kept is None:
            problems.append(f"the record has no criterion {criterion.name}")
        elif not _same(kept.value, criterion.value):
            problems.append(
                f"{criterion.name} {_shown(kept.value)} in the record, "
                f"{statistic(criterion.value)} recomputed from its {len(evidence.runs)} pairs"
            )
        if not criterion.met:
            problems.append(f"not met on its evidence: {criterion.explain()}")
    if current != policy:
        for criterion in recomputed_criteria(
            evidence, current, rubric, rubrics_dir, version=version
        ):
            if not criterion.met:
                problems.append(f"not met under the rubric's policy now: {criterion.explain()}")
    return problems


def recomputed_criteria(
    evidence: Evidence,
    policy: PromotionPolicy,
    rubric: Rubric,
    rubrics_dir: Path,
    *,
    version: str,
) -> list[Criterion]:
    """The policy's criteria on the evidence, as :func:`judgekit.calibration.build_report`
    computes them (a selective policy measures kappa on the verdicts it keeps)."""
    figures = evidence.figures(policy.confidence)
    found = criteria(policy, evidence.human, evidence.classes, figures.kappa_ci[0])
    selective = _selective(evidence, policy)
    found = kappa_on_kept(
        found,
        selective,
        evidence.runs,
        evidence.human,
        evidence.judge,
        evidence.classes,
        policy=policy,
        likert=evidence.likert,
        interval_method=evidence.interval_method,
    )
    found += selective_criterion(policy, selective, len(evidence.runs))
    probes = None
    if policy.max_flip_rate is not None:
        probes = load_probes(probes_path(rubric.id, rubrics_dir))
    found += flip_rate_criteria(policy, probes, version=version)
    if policy.max_ece is not None:
        found += ece_criterion(policy, evidence.calibration(policy.confidence))
    return found


def _selective(evidence: Evidence, policy: PromotionPolicy) -> SelectiveFigures | None:
    """What a selective policy keeps of the evidence (None when no run has a confidence)."""
    chosen = policy.selective
    known = sum(c is not None for c in evidence.confidences)
    if chosen is None or not known:
        return None
    correct = [h == j for h, j in zip(evidence.human, evidence.judge, strict=True)]
    picked = fixed_sequence_threshold(
        evidence.confidences, correct, alpha=chosen.alpha, delta=chosen.delta
    )
    bar = picked.threshold
    kept = [
        run
        for run, c in zip(evidence.runs, evidence.confidences, strict=True)
        if bar is not None and c is not None and c >= bar
    ]
    return SelectiveFigures(
        delta=chosen.delta,
        n=len(evidence.runs),
        n_with_confidence=known,
        rows=[],
        curve=[],
        policy=SelectiveRow.of(picked),
        kept_runs=kept,
    )


def _same(recorded: Any, now: float | None) -> bool:
    """Whether a recorded figure is the recomputed one (both undefined counts as the same)."""
    if recorded is None or now is None:
        return recorded is None and now is None
    if isinstance(recorded, bool) or not isinstance(recorded, int | float):
        return False
    return math.isclose(recorded, now, rel_tol=0, abs_tol=TOLERANCE)


def _shown(value: Any) -> str:
    """A recorded figure as the record holds it (it may be anything a hand put there)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return threshold(value)
    return "missing" if value is None else repr(value)
