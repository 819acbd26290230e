"""A rubric's status: *promoted* when a promotion record that holds matches its current
version.

The record (``rubrics/<id>.promotion.json``, written by ``judgekit promote``) binds the
calibration figures to one rubric version and judge model, with the evidence they were
computed from (:mod:`judgekit.calibration.promotion_check` checks it). Without a passing
record for the current version the rubric's scores are informational and never gate or
alert; it is *invalid* when its record does not hold (edited by hand, its labels or split
changed in place since, or written without evidence by an older judgekit), *stale* when a
record exists for another version (edited since it was promoted) or a recheck found its
judge drifted from the labels (``judgekit recheck``), *calibrating* when hand labels exist
(``labels/<id>.jsonl`` beside ``rubrics/``) but no passing record, and a *draft* otherwise.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypedDict

from judgekit._util.input_paths import is_file, open_regular, os_reason
from judgekit._util.number_format import bracketed_interval, rate, setting, statistic, threshold
from judgekit.errors import CalibrationError, DataError
from judgekit.formats.promotion import (
    UNREADABLE,
    ConfidenceRecord,
    CriterionRecord,
    PreviousPromotion,
    PromotionRecord,
    SelectiveRecord,
    SplitRecord,
    load_promotion_record,
    parse_promotion_record,
    promotion_record_path,
)
from judgekit.formats.rubric import Rubric

if TYPE_CHECKING:  # the report loads numpy; reading a rubric's status must not
    from judgekit.calibration.report import CalibrationReport
    from judgekit.calibration.split import SplitSummary

__all__ = [
    "RubricStatus",
    "default_labels_dir",
    "judged_model",
    "promotion_record",
    "promotion_record_path",
    "record_problem",
    "record_status",
    "replaced_record",
    "rubric_status",
    "test_kappa_change_line",
]

RubricStatus = Literal["promoted", "calibrating", "draft", "stale", "invalid"]


def default_labels_dir(rubrics_dir: Path) -> Path:
    """Where hand labels live by default: ``labels/`` beside ``rubrics/``."""
    return rubrics_dir.parent / "labels"


def promotion_record(
    report: CalibrationReport,
    *,
    now: datetime | None = None,
    replacing: PromotionRecord | None = None,
    rubrics_dir: Path = Path("rubrics"),
    stored_in: str | None = None,
) -> PromotionRecord:
    """The promotion record (``rubrics/<id>.promotion.json``, in ``rubrics_dir``) of a
    promotable report, sealed with its digest; ``replacing`` is the record it overwrites
    (one that holds), kept as ``previous`` when it was of another version (a version
    promoted again keeps the one before it); ``stored_in``, the store it will be recorded
    in."""
    from judgekit.calibration.promotion_evidence import compared_pairs, promotion_sources

    if not report.promotable:
        raise CalibrationError(f"{report.rubric_id} is not promotable")
    rates = report.error_rates
    record = PromotionRecord(
        rubric_id=report.rubric_id,
        rubric_version=report.rubric_version,
        promotable=True,
        model=report.model,
        judge=report.judge.model_dump(exclude_none=True),  # a jury only when one
        n=report.n,
        n_unscored=report.counts.n_unscored,
        n_tied=report.counts.n_tied,
        class_balance=report.class_balance.as_dict(),
        agreement=report.figures.agreement,
        kappa=report.kappa,
        kappa_ci=list(report.kappa_ci),
        interval_method=report.figures.interval_method,
        ac1=report.figures.ac1,
        confusion=report.confusion,
        false_pass_rate=None if rates is None else rates.false_pass_rate,
        false_fail_rate=None if rates is None else rates.false_fail_rate,
        unscored_rate=report.counts.unscored_rate,
        policy=report.policy.model_dump(),
        criteria={c.name: CriterionRecord(**c.as_dict()) for c in report.criteria},
        labelers={name: figures.compared for name, figures in report.labelers.items()},
        **_selective(report),
        **_confidence(report),
        promoted_at=(now or datetime.now(UTC)).isoformat(timespec="seconds"),
    )
    if report.split is not None:  # set only with a split: a report built in code has none
        record.split = _split_record(report.split)
    previous = _previous(report, replacing)
    if previous is not None:
        record.previous = previous
    record.evidence = compared_pairs(report)
    record.sources = promotion_sources(report, rubrics_dir)
    if stored_in is not None:
        record.stored_in = stored_in
    return record.sealed()


def _previous(
    report: CalibrationReport, replacing: PromotionRecord | None
) -> PreviousPromotion | None:
    if replacing is None:
        return None
    if replacing.rubric_version == report.rubric_version:
        return replacing.previous
    return PreviousPromotion(
        rubric_version=replacing.rubric_version,
        model=replacing.model,
        n=replacing.n,
        kappa=replacing.kappa,
        kappa_ci=replacing.kappa_ci,
        promoted_at=replacing.promoted_at,
    )


def replaced_record(path: Path) -> PromotionRecord | None:
    """The promotion record a new promotion overwrites at ``path``: None when there is
    none, or when it cannot be read (it is replaced whole either way)."""
    try:
        return load_promotion_record(path)
    except (DataError, OSError):
        return None


def test_kappa_change_line(record: PromotionRecord) -> str | None:
    """Before and after on the test labels, when the record replaced another version's:
    ``test kappa 0.133 [..] on 30 labels at version X → 0.733 [..] on 30 now``."""
    before = record.previous
    if before is None:
        return None
    return (
        f"test kappa {_kappa_on(before.kappa, before.kappa_ci, before.n)} at version "
        f"{before.rubric_version} (promoted {before.promoted_at}) → "
        f"{_kappa_on(record.kappa, record.kappa_ci, record.n)} now"
    )


def _kappa_on(kappa: float | None, ci: list[float | None] | None, n: int | None) -> str:
    interval = "" if not ci or len(ci) != 2 else f" {bracketed_interval(ci[0], ci[1])}"
    return f"{statistic(kappa)}{interval} on {'?' if n is None else n} labels"


def _split_record(split: SplitSummary) -> SplitRecord:
    """The held-out labels measured: the split's counts and the test runs used."""
    return SplitRecord(**split.as_dict(), test_runs=list(split.runs))


class _Selective(TypedDict, total=False):
    selective: SelectiveRecord


def _selective(report: CalibrationReport) -> _Selective:
    """The ``selective`` entry of a selective promotion (none otherwise, so a record of a
    plain promotion has no such field)."""
    row = None if report.selective is None else report.selective.policy
    if row is None or row.threshold is None:
        return _Selective()
    return _Selective(
        selective=SelectiveRecord(
            alpha=row.alpha,
            delta=row.delta,
            threshold=row.threshold,
            coverage=row.coverage,
            agreement_on_kept=row.agreement_on_kept,
            guaranteed_agreement=row.guaranteed_agreement,
            n=row.n,
        )
    )


class _Confidence(TypedDict, total=False):
    confidence_calibration: ConfidenceRecord


def _confidence(report: CalibrationReport) -> _Confidence:
    """The ECE and Brier score of the test runs' confidences (no such field when no
    verdict had one)."""
    figures = report.confidence_calibration
    errors = None if figures is None else figures.overall.errors
    if figures is None or errors is None:
        return _Confidence()
    return _Confidence(
        confidence_calibration=ConfidenceRecord(
            n=errors.n,
            n_bins=figures.n_bins,
            ece=errors.ece,
            ece_ci=list(errors.ece_ci),
            brier=errors.brier,
            brier_ci=list(errors.brier_ci),
        )
    )


def rubric_status(
    rubric: Rubric, rubrics_dir: Path, *, labels_dir: Path | None = None
) -> tuple[RubricStatus, str]:
    """The status and why: promoted, invalid (a record that does not hold: what does not),
    stale (a record for another version: the rubric or its judge changed since it was
    calibrated), calibrating (labels but no passing record) or draft (neither)."""
    path = promotion_record_path(rubric, rubrics_dir)
    labels = (labels_dir or default_labels_dir(rubrics_dir)) / f"{rubric.id}.jsonl"
    labelled = is_file(labels)
    try:
        with open_regular(path) as fh:
            record = parse_promotion_record(fh.read(), path=path)
    except FileNotFoundError:
        if labelled:
            return "calibrating", f"hand labels in {labels}, not promoted yet"
        return "draft", "not calibrated yet"
    except OSError as exc:
        return "draft", f"unreadable promotion record {path}: {os_reason(exc)}"
    except DataError as exc:
        reason = exc.message.removeprefix(UNREADABLE)
        field = f"{exc.field}: " if exc.field else ""
        return "draft", f"unreadable promotion record {path}: {field}{reason}"
    if not record.promotable:
        why = "the last calibration did not clear the promotion bar"
        return ("calibrating" if labelled else "draft"), why
    return record_status(record, rubric, rubrics_dir)


def record_status(
    record: PromotionRecord, rubric: Rubric, rubrics_dir: Path
) -> tuple[RubricStatus, str]:
    """The status a promotion ``record`` gives ``rubric``: invalid with its first problem,
    stale, or promoted."""
    from judgekit.calibration.promotion_check import verify_promotion_record  # numpy

    try:
        problems = verify_promotion_record(record, rubric, rubrics_dir=rubrics_dir)
    except DataError as exc:  # a file it names cannot be read
        return "invalid", str(exc)
    invalid = [problem for problem in problems if not problem.stale]
    if invalid:
        return "invalid", invalid[0].text
    if problems:
        return "stale", problems[0].text
    return "promoted", _promoted_on(record)


def record_problem(record: PromotionRecord, rubric: Rubric) -> str | None:
    """Why ``record``, found beside ``rubric``'s file, does not promote it (None when it
    does): the check judging hands abstention."""
    folder = rubric.source.parent if rubric.source is not None else Path("rubrics")
    status, why = record_status(record, rubric, folder)
    return None if status == "promoted" else f"{status}: {why}"


def _promoted_on(record: PromotionRecord) -> str:
    """``calibrated on 60 fresh test labels; selective at α = 0.1: coverage 0.82``."""
    held_out = " fresh test" if record.split is not None else ""
    why = f"calibrated on {'?' if record.n is None else record.n}{held_out} labels"
    selective = record.selective
    if selective is None or selective.threshold is None or selective.alpha is None:
        return why
    return (
        f"{why}; selective at α = {setting(selective.alpha)}: coverage "
        f"{rate(selective.coverage)} (threshold {threshold(selective.threshold)})"
    )


def judged_model(rubric: Rubric, status: RubricStatus, rubrics_dir: Path) -> str:
    """The judge model whose verdicts count: the promotion record's while promoted, else
    the rubric's own."""
    if status == "promoted":
        record = load_promotion_record(promotion_record_path(rubric, rubrics_dir))
        return record.model or rubric.judge.model
    return rubric.judge.model
