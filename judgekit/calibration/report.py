"""Joining a rubric's verdicts with its hand labels, and the calibration report.

The join, step by step:

1. **Verdicts**: only those of the rubric's current version and judge model count; the
   others are left out and counted (``n_other_versions``, ``n_other_models``). When a run
   was judged more than once, the latest verdict wins.
2. **Labels**: each labeller's latest label of a run (a later line supersedes an earlier
   one). A run labelled by several people is compared through its *majority* label; a run
   whose labellers tie is left out and counted (``n_tied``).
3. **Pairs**: runs with both a majority label and a verdict. An unscored verdict is neither
   a pass nor a fail: the run is left out and counted (``n_unscored``).

Stale labels (the run's text changed since it was labelled, known when the runs are given)
are kept in the comparison and listed, so they can be relabelled.

On a binary scale "pass" is the positive class: the false-pass rate is the share of what
humans fail that the judge passes, the false-fail rate the share of what humans pass that
the judge fails.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from judgekit.errors import CalibrationError
from judgekit.formats.label import Label
from judgekit.formats.rubric import PromotionPolicy, Rubric, Score, normalise_score, scale_values
from judgekit.formats.rubric_file import rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.stats import (
    cohen_kappa_score,
    confusion,
    gwet_ac1_score,
    judge_error_rates,
    kappa_interval,
    kappa_sample_size,
    kappa_standard_error,
    percent_agreement,
    ppi_mean_interval,
    rogan_gladen,
)
from judgekit.stats.proportions import wilson_interval

__all__ = [
    "CalibrationReport",
    "Criterion",
    "Disagreement",
    "IntervalMethod",
    "PassRates",
    "VerdictSelection",
    "build_report",
    "promotion_record",
    "select_verdicts",
]

IntervalMethod = Literal["analytic", "bootstrap"]
POSITIVE = "pass"


@dataclass(frozen=True)
class VerdictSelection:
    """The verdicts that count (run id → latest verdict of this version and model), and
    how many were left out."""

    current: dict[str, Verdict]
    n_other_versions: int
    n_other_models: int
    n_superseded: int


def select_verdicts(
    verdicts: Iterable[Verdict], rubric_id: str, *, version: str, model: str
) -> VerdictSelection:
    """Keep the verdicts of ``rubric_id`` at ``version`` by ``model``, the latest per run.

    ``verdicts`` come oldest first (file order, or the store's order by time).
    """
    current: dict[str, Verdict] = {}
    other_versions = other_models = superseded = 0
    for verdict in verdicts:
        if verdict.rubric_id != rubric_id:
            continue
        if verdict.rubric_version != version:
            other_versions += 1
            continue
        if verdict.model != model:
            other_models += 1
            continue
        if verdict.run_id in current:
            superseded += 1
        current[verdict.run_id] = verdict
    return VerdictSelection(current, other_versions, other_models, superseded)


@dataclass(frozen=True)
class Criterion:
    """One promotion criterion: the value measured, the bar, and whether it is met."""

    name: str
    value: float | None
    bar: float
    met: bool
    what: str  # what the value is, for messages

    @property
    def short_by(self) -> float | None:
        """How far the value is below the bar (None when met or unmeasured)."""
        if self.met or self.value is None:
            return None
        return self.bar - self.value

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "bar": self.bar,
            "met": self.met,
            "short_by": self.short_by,
            "what": self.what,
        }

    def explain(self) -> str:
        """One line: ``min_kappa: lower bound of the 95% kappa interval 0.512, bar 0.6
        (0.088 short)``."""
        value = "undefined" if self.value is None else _fmt(self.value)
        text = f"{self.name}: {self.what} {value}, bar {_fmt(self.bar)}"
        if self.short_by is not None:
            text += f" ({_fmt(self.short_by)} short)"
        elif not self.met:
            text += " (not met)"
        return text


@dataclass(frozen=True)
class Disagreement:
    """A run where the judge and the humans' majority label differ."""

    run_id: str
    human: Score
    judge: Score
    reason: str | None
    notes: dict[str, str]  # labeller -> note

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "human": self.human,
            "judge": self.judge,
            "reason": self.reason,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class PassRates:
    """The pass rate over every scored verdict of the version (labelled runs or not), raw
    and corrected for the judge's errors measured on the labelled runs (binary rubrics).

    * ``raw``: the share of scored verdicts that pass (``n_scored`` of them);
    * ``corrected``: Rogan–Gladen, with sensitivity = 1 - false-fail rate and specificity =
      1 - false-pass rate measured on the compared runs (None when undefined);
    * ``ppi``: the prediction-powered estimate of the human pass rate and its interval, from
      the compared runs (human and judge) and the judge's verdicts on the ``n_unlabelled``
      other scored runs (those with no usable label: unlabelled, or tied).
    """

    raw: float | None
    n_scored: int
    sensitivity: float | None
    specificity: float | None
    corrected: float | None
    ppi: tuple[float, float, float] | None
    n_unlabelled: int

    @staticmethod
    def empty() -> PassRates:
        return PassRates(None, 0, None, None, None, None, 0)

    def as_dict(self) -> dict[str, Any]:
        ppi = None
        if self.ppi is not None:
            ppi = dict(zip(("estimate", "low", "high"), self.ppi, strict=True))
        return {
            "raw_pass_rate": self.raw,
            "n_scored": self.n_scored,
            "sensitivity": self.sensitivity,
            "specificity": self.specificity,
            "corrected_pass_rate": self.corrected,
            "ppi_pass_rate": ppi,
            "n_unlabelled": self.n_unlabelled,
        }


@dataclass
class CalibrationReport:
    """The judge against the hand labels of one rubric version; :meth:`as_dict` is the
    ``--json`` object."""

    rubric_id: str
    rubric_version: str
    model: str
    judge: dict[str, Any]
    scale: str
    classes: list[Score]
    n: int
    n_unscored: int
    n_tied: int
    n_labelled_runs: int
    n_verdicts: int
    n_labelled_without_verdict: int
    n_other_versions: int
    n_other_models: int
    unscored_rate: float | None
    class_balance: dict[str, dict[str, int]]
    agreement: float | None
    kappa: float | None
    kappa_ci: list[float | None]
    kappa_se: float | None
    interval_method: IntervalMethod
    ac1: float | None
    weighted_kappa: float | None
    confusion: dict[str, dict[str, int]]
    false_pass_rate: float | None
    false_pass_ci: list[float | None] | None
    false_fail_rate: float | None
    false_fail_ci: list[float | None] | None
    self_agreement: dict[str, Any] | None
    labelers: dict[str, dict[str, Any]]
    stale_labels: list[dict[str, str]] | None
    disagreements: list[Disagreement]
    policy: PromotionPolicy
    criteria: list[Criterion]
    labels_needed: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    pass_rates: PassRates | None = None
    comparison: dict[str, Any] | None = None
    position_bias: dict[str, Any] | None = None

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
            "judge": self.judge,
            "scale": self.scale,
            "n": self.n,
            "n_unscored": self.n_unscored,
            "n_tied": self.n_tied,
            "n_labelled_runs": self.n_labelled_runs,
            "n_verdicts": self.n_verdicts,
            "n_labelled_without_verdict": self.n_labelled_without_verdict,
            "n_other_versions": self.n_other_versions,
            "n_other_models": self.n_other_models,
            "unscored_rate": self.unscored_rate,
            "class_balance": self.class_balance,
            "agreement": self.agreement,
            "kappa": self.kappa,
            "kappa_ci": self.kappa_ci,
            "kappa_se": self.kappa_se,
            "confidence": self.policy.confidence,
            "interval_method": self.interval_method,
            "ac1": self.ac1,
            "weighted_kappa": self.weighted_kappa,
            "confusion": self.confusion,
            "false_pass_rate": self.false_pass_rate,
            "false_pass_ci": self.false_pass_ci,
            "false_fail_rate": self.false_fail_rate,
            "false_fail_ci": self.false_fail_ci,
            "self_agreement": self.self_agreement,
            "labelers": self.labelers,
            "stale_labels": self.stale_labels,
            "disagreements": [d.as_dict() for d in self.disagreements],
            "policy": self.policy.model_dump(),
            "promotable": self.promotable,
            "criteria": {c.name: c.as_dict() for c in self.criteria},
            "labels_needed": self.labels_needed,
            "sources": self.sources,
            "warnings": self.warnings,
            **(self.pass_rates or PassRates.empty()).as_dict(),
            "comparison": self.comparison,
            "position_bias": self.position_bias,
        }


def build_report(
    rubric: Rubric,
    verdicts: Iterable[Verdict],
    labels: Mapping[tuple[str, str], Label],
    *,
    item_hashes: Mapping[str, str] | None = None,
    interval_method: IntervalMethod = "analytic",
    sources: Mapping[str, str] | None = None,
) -> CalibrationReport:
    """Join ``verdicts`` (oldest first) with the current ``labels`` ((run, labeller) →
    label, as :attr:`LabelLog.current`) and compute the report.

    ``rubric`` is the rubric as judged (its judge model is the one compared). Raises
    :class:`CalibrationError` when labels and verdicts share no run, or nothing is left to
    compare once unscored verdicts and tied labels are set aside.
    """
    version = rubric_version(rubric)
    model = rubric.judge.model
    classes = list(scale_values(rubric.scale))
    selection = select_verdicts(verdicts, rubric.id, version=version, model=model)
    by_run: dict[str, dict[str, Label]] = {}
    for (run_id, labeler), label in sorted(labels.items()):
        by_run.setdefault(run_id, {})[labeler] = label
    shared = [run for run in sorted(by_run) if run in selection.current]
    if not shared:
        raise CalibrationError(
            f"no run of {rubric.id} (version {version}, judge {model}) has both a label and a "
            f"verdict: {len(by_run)} labelled runs, {len(selection.current)} verdicts of this "
            f"version"
            + (
                f" ({selection.n_other_versions} of other versions left out)"
                if selection.n_other_versions
                else ""
            )
        )

    human: list[Score] = []
    judged: list[Score] = []
    compared: list[str] = []
    n_unscored = n_tied = 0
    report_warnings: list[str] = []
    for run_id in shared:
        verdict = selection.current[run_id]
        score = _verdict_score(rubric, verdict)
        if score is None:
            n_unscored += 1
            continue
        majority = _majority([label.label for label in by_run[run_id].values()])
        if majority is None:
            n_tied += 1
            continue
        human.append(majority)
        judged.append(score)
        compared.append(run_id)
    if not compared:
        raise CalibrationError(
            f"nothing to compare for {rubric.id} (version {version}): of {len(shared)} runs "
            f"with both a label and a verdict, {n_unscored} verdicts are unscored and "
            f"{n_tied} runs have tied labels"
        )

    policy = rubric.promotion
    stats = _statistics(rubric, human, judged, classes, policy.confidence, interval_method)
    human_counts = Counter(human)
    judge_counts = Counter(judged)
    class_balance = {
        "human": {str(c): human_counts[c] for c in classes},
        "judge": {str(c): judge_counts[c] for c in classes},
    }
    criteria = _criteria(policy, len(compared), human_counts, classes, stats["kappa_ci"][0])
    disagreements = [
        Disagreement(
            run_id=run_id,
            human=h,
            judge=j,
            reason=selection.current[run_id].reason,
            notes={who: lab.note for who, lab in by_run[run_id].items() if lab.note},
        )
        for run_id, h, j in zip(compared, human, judged, strict=True)
        if h != j
    ]
    judge_by_run = dict(zip(compared, judged, strict=True))
    return CalibrationReport(
        rubric_id=rubric.id,
        rubric_version=version,
        model=model,
        judge=rubric.judge.model_dump(),
        scale=rubric.kind,
        classes=classes,
        n=len(compared),
        n_unscored=n_unscored,
        n_tied=n_tied,
        n_labelled_runs=len(by_run),
        n_verdicts=len(selection.current),
        n_labelled_without_verdict=len(by_run) - len(shared),
        n_other_versions=selection.n_other_versions,
        n_other_models=selection.n_other_models,
        unscored_rate=n_unscored / len(shared),
        class_balance=class_balance,
        agreement=stats["agreement"],
        kappa=stats["kappa"],
        kappa_ci=stats["kappa_ci"],
        kappa_se=stats["kappa_se"],
        interval_method=interval_method,
        ac1=stats["ac1"],
        weighted_kappa=stats["weighted_kappa"],
        confusion=stats["confusion"],
        false_pass_rate=stats["false_pass_rate"],
        false_pass_ci=stats["false_pass_ci"],
        false_fail_rate=stats["false_fail_rate"],
        false_fail_ci=stats["false_fail_ci"],
        self_agreement=_self_agreement([selection.current[run] for run in compared]),
        position_bias=_position_bias([selection.current[run] for run in compared]),
        labelers=_per_labeler(labels, judge_by_run),
        stale_labels=_stale(labels, item_hashes),
        disagreements=disagreements,
        policy=policy,
        criteria=criteria,
        labels_needed=_labels_needed(policy, len(compared), stats),
        sources=dict(sources or {}),
        warnings=report_warnings,
        pass_rates=_pass_rates(rubric, selection.current, compared, human, judged, stats, policy)
        if rubric.kind == "binary"
        else None,
    )


def _pass_rates(
    rubric: Rubric,
    current: Mapping[str, Verdict],
    compared: Sequence[str],
    human: Sequence[Score],
    judged: Sequence[Score],
    stats: Mapping[str, Any],
    policy: PromotionPolicy,
) -> PassRates:
    """Raw, Rogan–Gladen and prediction-powered pass rates over every scored verdict."""
    labelled = set(compared)
    scores = {run: _verdict_score(rubric, v) for run, v in current.items()}
    scored = [score for score in scores.values() if score is not None]
    unlabelled = [
        float(score == POSITIVE)
        for run, score in sorted(scores.items())
        if score is not None and run not in labelled
    ]
    raw = sum(s == POSITIVE for s in scored) / len(scored)  # compared runs are scored: not 0
    fpr, ffr = stats["false_pass_rate"], stats["false_fail_rate"]
    sensitivity = None if ffr is None else 1.0 - ffr
    specificity = None if fpr is None else 1.0 - fpr
    corrected = None
    ppi: tuple[float, float, float] | None = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined figures are reported as null
        if sensitivity is not None and specificity is not None:
            corrected = _num(rogan_gladen(raw, sensitivity, specificity))
        if unlabelled:
            estimate, low, high = ppi_mean_interval(
                [float(h == POSITIVE) for h in human],
                [float(j == POSITIVE) for j in judged],
                unlabelled,
                confidence=policy.confidence,
            )
            if not math.isnan(estimate):
                ppi = (estimate, low, high)
    return PassRates(
        raw=raw,
        n_scored=len(scored),
        sensitivity=sensitivity,
        specificity=specificity,
        corrected=corrected,
        ppi=ppi,
        n_unlabelled=len(unlabelled),
    )


def _verdict_score(rubric: Rubric, verdict: Verdict) -> Score | None:
    """The verdict's score on the scale, or None when it is unscored (or off the scale)."""
    if verdict.status != "scored" or verdict.score is None:
        return None
    try:
        return normalise_score(rubric.scale, verdict.score)
    except ValueError:
        return None


def _majority(values: Sequence[Score]) -> Score | None:
    """The most common label, or None when two or more labels tie for first."""
    ranked = Counter(values).most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]


def _num(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def _statistics(
    rubric: Rubric,
    human: list[Score],
    judged: list[Score],
    classes: list[Score],
    confidence: float,
    interval_method: IntervalMethod,
) -> dict[str, Any]:
    labels: list[Hashable] = list(classes)
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        # An undefined statistic (one class throughout) is reported as null, not warned.
        warnings.simplefilter("ignore")
        out["agreement"] = percent_agreement(human, judged)
        out["kappa"] = _num(cohen_kappa_score(human, judged, labels=labels))
        low, high = kappa_interval(
            human, judged, labels=labels, confidence=confidence, method=interval_method
        )
        out["kappa_ci"] = [_num(low), _num(high)]
        out["kappa_se"] = _num(kappa_standard_error(human, judged, labels=labels))
        out["ac1"] = _num(gwet_ac1_score(human, judged, labels=labels))
        out["weighted_kappa"] = (
            _num(cohen_kappa_score(human, judged, labels=labels, weights="quadratic"))
            if rubric.kind == "likert"
            else None
        )
        table = confusion(human, judged, labels=labels)
        out["confusion"] = {
            str(h): {str(j): count for j, count in row.items()} for h, row in table.items()
        }
        out["false_pass_rate"] = out["false_fail_rate"] = None
        out["false_pass_ci"] = out["false_fail_ci"] = None
        if rubric.kind == "binary":
            rates = judge_error_rates(human, judged, pos_label=POSITIVE, confidence=confidence)
            out["false_pass_rate"] = _num(rates.false_pass_rate.estimate)
            out["false_pass_ci"] = [
                _num(rates.false_pass_rate.low),
                _num(rates.false_pass_rate.high),
            ]
            out["false_fail_rate"] = _num(rates.false_fail_rate.estimate)
            out["false_fail_ci"] = [
                _num(rates.false_fail_rate.low),
                _num(rates.false_fail_rate.high),
            ]
    return out


def _criteria(
    policy: PromotionPolicy,
    n: int,
    human_counts: Mapping[Score, int],
    classes: list[Score],
    kappa_low: float | None,
) -> list[Criterion]:
    fewest = min(classes, key=lambda c: human_counts.get(c, 0))
    fewest_n = human_counts.get(fewest, 0)
    percent = f"{policy.confidence:.0%}"
    return [
        Criterion("min_labels", n, policy.min_labels, n >= policy.min_labels, "runs compared"),
        Criterion(
            "min_per_class",
            fewest_n,
            policy.min_per_class,
            fewest_n >= policy.min_per_class,
            f"fewest human labels in a class ({fewest})",
        ),
        Criterion(
            "min_kappa",
            kappa_low,
            policy.min_kappa,
            kappa_low is not None and kappa_low >= policy.min_kappa,
            f"lower bound of the {percent} kappa interval",
        ),
    ]


def _labels_needed(policy: PromotionPolicy, n: int, stats: Mapping[str, Any]) -> dict[str, Any]:
    """More labels needed: for ``min_labels``, and for the kappa interval's lower bound to
    reach ``min_kappa`` if kappa and the class balance hold (None when unreachable)."""
    kappa, se = stats["kappa"], stats["kappa_se"]
    for_kappa: int | None = None
    reachable = False
    if kappa is not None and se is not None:
        for_kappa = kappa_sample_size(
            kappa, n, bar=policy.min_kappa, confidence=policy.confidence, standard_error=se
        )
        reachable = for_kappa is not None
    return {
        "for_min_labels": max(0, policy.min_labels - n),
        "for_kappa": for_kappa,
        "kappa_reachable": reachable,
    }


def _self_agreement(verdicts: Sequence[Verdict]) -> dict[str, Any] | None:
    """Mean agreement of a judge sampled more than once per run (None when it was not)."""
    sampled = [
        v.agreement
        for v in verdicts
        if v.samples and len(v.samples) > 1 and v.agreement is not None
    ]
    if not sampled:
        return None
    samples = max(len(v.samples or []) for v in verdicts)
    return {"mean": sum(sampled) / len(sampled), "runs": len(sampled), "samples": samples}


def _position_bias(verdicts: Sequence[Verdict]) -> dict[str, Any] | None:
    """How often a pairwise judge changed its choice when the two answers swapped places,
    over the compared verdicts asked in both orders (None when none was)."""
    checked = [v.position_bias for v in verdicts if v.position_bias is not None]
    if not checked:
        return None
    flipped = sum(checked)
    low, high = wilson_interval(flipped, len(checked))
    return {
        "checked": len(checked),
        "flipped": flipped,
        "rate": flipped / len(checked),
        "ci": [low, high],
    }


def _per_labeler(
    labels: Mapping[tuple[str, str], Label], judge_by_run: Mapping[str, Score]
) -> dict[str, dict[str, Any]]:
    """Per labeller: current labels, runs among those compared, and agreement with the judge."""
    out: dict[str, dict[str, Any]] = {}
    for (run_id, labeler), label in sorted(labels.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        entry = out.setdefault(labeler, {"labels": 0, "compared": 0, "agree": 0})
        entry["labels"] += 1
        if run_id in judge_by_run:
            entry["compared"] += 1
            entry["agree"] += int(label.label == judge_by_run[run_id])
    for entry in out.values():
        agree = entry.pop("agree")
        entry["agreement_with_judge"] = agree / entry["compared"] if entry["compared"] else None
    return out


def _stale(
    labels: Mapping[tuple[str, str], Label], item_hashes: Mapping[str, str] | None
) -> list[dict[str, str]] | None:
    if item_hashes is None:
        return None
    return [
        {"run_id": run_id, "labeler": labeler}
        for (run_id, labeler), label in sorted(labels.items())
        if label.item_hash is not None
        and run_id in item_hashes
        and item_hashes[run_id] != label.item_hash
    ]


def promotion_record(report: CalibrationReport, *, now: datetime | None = None) -> dict[str, Any]:
    """The promotion record (``rubrics/<id>.promotion.json``) of a promotable report."""
    if not report.promotable:
        raise CalibrationError(f"{report.rubric_id} is not promotable")
    return {
        "rubric_id": report.rubric_id,
        "rubric_version": report.rubric_version,
        "promotable": True,
        "model": report.model,
        "judge": report.judge,
        "n": report.n,
        "n_unscored": report.n_unscored,
        "n_tied": report.n_tied,
        "class_balance": report.class_balance,
        "agreement": report.agreement,
        "kappa": report.kappa,
        "kappa_ci": report.kappa_ci,
        "interval_method": report.interval_method,
        "ac1": report.ac1,
        "confusion": report.confusion,
        "false_pass_rate": report.false_pass_rate,
        "false_fail_rate": report.false_fail_rate,
        "unscored_rate": report.unscored_rate,
        "policy": report.policy.model_dump(),
        "criteria": {c.name: c.as_dict() for c in report.criteria},
        "labelers": {name: entry["compared"] for name, entry in report.labelers.items()},
        "promoted_at": (now or datetime.now(UTC)).isoformat(timespec="seconds"),
    }


def _fmt(value: float) -> str:
    """Three decimals at most, trailing zeros dropped; a value that rounds to zero is "0",
    never "-0" (a lower bound of -0.0000001 is zero to a reader).

    >>> [_fmt(v) for v in (0.6, 50.0, 0.1234, -1e-9, 0.0)]
    ['0.6', '50', '0.123', '0', '0']
    """
    if float(value).is_integer() and abs(value) >= 1:
        return str(int(value))
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text
