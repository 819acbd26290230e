"""The calibration report: a rubric's verdicts joined with its hand labels, step by step.

1. **Verdicts** (:mod:`~judgekit.calibration.selection`): only those of the rubric's current
   version and judge model count; the others are left out and counted
   (``n_other_versions``, ``n_other_models``). When a run was judged more than once, the
   latest verdict wins.
2. **Labels** (:mod:`~judgekit.calibration.join`): each labeller's latest label of a run. A
   run labelled by several people is compared through its *majority* label; a run whose
   labellers tie is left out and counted (``n_tied``).
3. **Pairs**: runs with both a majority label and a verdict. An unscored verdict is neither
   a pass nor a fail: the run is left out and counted (``n_unscored``).
4. **Figures** (:mod:`~judgekit.calibration.agreement_statistics`,
   :mod:`~judgekit.calibration.pass_rates`) on the pairs, and the promotion policy's
   **criteria** (:mod:`~judgekit.calibration.criteria`).

Stale labels (the run's text changed since it was labelled, known when the runs are given)
are kept in the comparison and listed, so they can be relabelled.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from judgekit.calibration.agreement_statistics import (
    NO_ERROR_RATES,
    AgreementFigures,
    Bounds,
    ClassBalance,
    Confusion,
    ErrorRates,
    IntervalMethod,
    PositionBias,
    SelfAgreement,
    agreement_figures,
    class_balance,
    error_rates,
    position_bias,
    self_agreement,
)
from judgekit.calibration.compare import JudgeComparison
from judgekit.calibration.confidence_calibration import (
    ConfidenceCalibration,
    confidence_calibration,
    ece_criterion,
)
from judgekit.calibration.criteria import (
    Criterion,
    LabelsNeeded,
    criteria,
    flip_rate_criteria,
    labels_needed,
)
from judgekit.calibration.join import AssignedLabel, Counts, Pairs, join_labels
from judgekit.calibration.jury_figures import JuryFigures, jury_figures
from judgekit.calibration.labellers import (
    Disagreement,
    LabelerFigures,
    StaleLabel,
    disagreements,
    per_labeler,
    stale_labels,
)
from judgekit.calibration.pass_rates import PassRates, pass_rates
from judgekit.calibration.scale_errors import ScaleErrors, scale_errors
from judgekit.calibration.selection import select_verdicts
from judgekit.calibration.selective import (
    SelectiveFigures,
    kappa_on_kept,
    selective_criterion,
    selective_figures,
    verdict_confidence,
)
from judgekit.calibration.split import MeasuredOn, SplitSummary
from judgekit.formats.label import Label
from judgekit.formats.probe_file import ProbesFile, load_probes, probes_path
from judgekit.formats.rubric import JudgeSettings, PromotionPolicy, Rubric, Score, scale_values
from judgekit.formats.rubric_file import rubric_version
from judgekit.formats.verdict import Verdict

__all__ = ["CalibrationReport", "build_report"]


@dataclass(frozen=True)
class CalibrationReport:
    """The judge against the hand labels of one rubric version; :meth:`as_dict` is the
    ``--json`` object."""

    rubric_id: str
    rubric_version: str
    model: str
    judge: JudgeSettings
    scale: str
    classes: list[Score]
    counts: Counts
    class_balance: ClassBalance
    figures: AgreementFigures
    error_rates: ErrorRates | None  # binary rubrics only
    self_agreement: SelfAgreement | None
    labelers: dict[str, LabelerFigures]
    stale_labels: list[StaleLabel] | None
    disagreements: list[Disagreement]
    policy: PromotionPolicy
    criteria: list[Criterion]
    labels_needed: LabelsNeeded
    sources: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    pass_rates: PassRates | None = None  # binary rubrics only
    comparison: JudgeComparison | None = None
    position_bias: PositionBias | None = None
    # Which labelled runs were measured: those of the dev or test side of the split, or
    # all of them (a report built in code, without a split).
    measured_on: MeasuredOn = "all"
    split: SplitSummary | None = None
    scale_errors: ScaleErrors | None = None  # likert, choices and pairwise rubrics
    selective: SelectiveFigures | None = None  # when some verdict has a confidence
    pairs: Pairs | None = None  # the compared runs, their labels and verdicts
    # the judge's confidence against whether it agreed (absent, with why, without confidences)
    confidence_calibration: ConfidenceCalibration | None = None
    jury: JuryFigures | None = None  # a jury rubric: each juror's figures, the best juror's

    @property
    def n(self) -> int:
        """Runs compared."""
        return self.counts.n

    @property
    def kappa(self) -> float | None:
        return self.figures.kappa

    @property
    def kappa_ci(self) -> Bounds:
        return self.figures.kappa_ci

    @property
    def confusion(self) -> Confusion:
        return self.figures.confusion

    @property
    def promotable(self) -> bool:
        return all(criterion.met for criterion in self.criteria)

    @property
    def failed(self) -> list[Criterion]:
        return [criterion for criterion in self.criteria if not criterion.met]

    def as_dict(self) -> dict[str, Any]:
        return {
            "rubric_id": self.rubric_id,
            "rubric_version": self.rubric_version,
            "model": self.model,
            "judge": self.judge.model_dump(exclude_none=True),  # a jury only when one
            "scale": self.scale,
            **self.counts.as_dict(),
            "class_balance": self.class_balance.as_dict(),
            **self.figures.as_dict(),
            **(NO_ERROR_RATES if self.error_rates is None else self.error_rates.as_dict()),
            "self_agreement": _as_dict(self.self_agreement),
            "labelers": {name: figures.as_dict() for name, figures in self.labelers.items()},
            "stale_labels": _as_dicts(self.stale_labels),
            "disagreements": [d.as_dict() for d in self.disagreements],
            "policy": self.policy.model_dump(),
            "promotable": self.promotable,
            "criteria": {c.name: c.as_dict() for c in self.criteria},
            "labels_needed": self.labels_needed.as_dict(),
            "sources": self.sources,
            "warnings": self.warnings,
            **(self.pass_rates or PassRates.empty()).as_dict(),
            "comparison": _as_dict(self.comparison),
            "position_bias": _as_dict(self.position_bias),
            "measured_on": self.measured_on,
            "split": _as_dict(self.split),
            "scale_errors": _as_dict(self.scale_errors),
            "selective": _as_dict(self.selective),
            "confidence_calibration": _as_dict(self.confidence_calibration),
            "jury": _as_dict(self.jury),
        }


def build_report(
    rubric: Rubric,
    verdicts: Iterable[Verdict],
    labels: Mapping[tuple[str, str], Label],
    *,
    item_hashes: Mapping[str, str] | None = None,
    interval_method: IntervalMethod = "analytic",
    sources: Mapping[str, str] | None = None,
    as_assigned: Mapping[str, AssignedLabel] | None = None,
) -> CalibrationReport:
    """Join ``verdicts`` (oldest first) with the current ``labels`` ((run, labeller) →
    label, as :attr:`LabelLog.current`) and compute the report; the runs of
    ``as_assigned`` (held-out test runs) count with the label they were assigned with.

    ``rubric`` is the rubric as judged (its judge model is the one compared). Raises
    :class:`CalibrationError` when labels and verdicts share no run, or nothing is left to
    compare once unscored verdicts and tied labels are set aside.
    """
    version = rubric_version(rubric)
    selection = select_verdicts(verdicts, rubric.id, version=version, model=rubric.judge.model)
    pairs = join_labels(rubric, version, selection, labels, as_assigned=as_assigned)
    classes = list(scale_values(rubric.scale))
    policy = rubric.promotion
    figures = agreement_figures(
        pairs.human,
        pairs.judge,
        classes,
        likert=rubric.kind == "likert",
        confidence=policy.confidence,
        interval_method=interval_method,
    )
    rates = None
    if rubric.kind == "binary":
        rates = error_rates(pairs.human, pairs.judge, confidence=policy.confidence)
    selective = selective_figures(pairs.runs, pairs.verdicts, pairs.human, pairs.judge, policy)
    calibrated = confidence_calibration(
        [verdict_confidence(v) for v in pairs.verdicts],
        pairs.human,
        pairs.judge,
        classes,
        confidence=policy.confidence,
    )
    return CalibrationReport(
        rubric_id=rubric.id,
        rubric_version=version,
        model=rubric.judge.model,
        judge=rubric.judge,
        scale=rubric.kind,
        classes=classes,
        counts=pairs.counts(),
        class_balance=class_balance(pairs.human, pairs.judge, classes),
        figures=figures,
        error_rates=rates,
        self_agreement=self_agreement(pairs.verdicts),
        position_bias=position_bias(pairs.verdicts),
        labelers=per_labeler(labels, pairs.judge_by_run),
        stale_labels=stale_labels(labels, item_hashes),
        disagreements=disagreements(pairs, classes, ordinal=rubric.kind == "likert"),
        policy=policy,
        criteria=_criteria(rubric, pairs, classes, figures, selective, interval_method)
        + ece_criterion(policy, calibrated),
        labels_needed=labels_needed(policy, len(pairs.runs), figures),
        sources=dict(sources or {}),
        pass_rates=_pass_rates(rubric, pairs, rates),
        scale_errors=scale_errors(
            rubric.kind, pairs.human, pairs.judge, classes, confidence=policy.confidence
        ),
        selective=selective,
        pairs=pairs,
        confidence_calibration=calibrated,
        jury=jury_figures(rubric, pairs, classes, interval_method=interval_method),
    )


def _criteria(
    rubric: Rubric,
    pairs: Pairs,
    classes: list[Score],
    figures: AgreementFigures,
    selective: SelectiveFigures | None,
    interval_method: IntervalMethod,
) -> list[Criterion]:
    """The policy's criteria; a selective policy measures kappa on the kept verdicts and
    adds the ``selective`` criterion."""
    policy = rubric.promotion
    measured = kappa_on_kept(
        criteria(policy, pairs.human, classes, figures.kappa_ci[0]),
        selective,
        pairs.runs,
        pairs.human,
        pairs.judge,
        classes,
        policy=policy,
        likert=rubric.kind == "likert",
        interval_method=interval_method,
    )
    probed = flip_rate_criteria(policy, _probes(rubric), version=rubric_version(rubric))
    return measured + selective_criterion(policy, selective, len(pairs.runs)) + probed


def _probes(rubric: Rubric) -> ProbesFile | None:
    """The bias probes beside the rubric's file (none for a rubric built in code, or when
    its policy sets no max_flip_rate)."""
    if rubric.promotion.max_flip_rate is None or rubric.source is None:
        return None
    return load_probes(probes_path(rubric.id, rubric.source.parent))


def _pass_rates(rubric: Rubric, pairs: Pairs, rates: ErrorRates | None) -> PassRates | None:
    if rates is None:
        return None
    return pass_rates(rubric, pairs, rates, confidence=rubric.promotion.confidence)


class _Part(Protocol):
    def as_dict(self) -> dict[str, Any]: ...


def _as_dict(part: _Part | None) -> dict[str, Any] | None:
    return None if part is None else part.as_dict()


def _as_dicts(parts: list[StaleLabel] | None) -> list[dict[str, str]] | None:
    return None if parts is None else [part.as_dict() for part in parts]
