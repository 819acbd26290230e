"""Judge drift: ask the promoted judge again about the labelled runs and compare its
agreement with the humans (Cohen's kappa) with the figure it was promoted on.

A provider can change the model behind a name without notice; the verdicts then drift away
from the humans while the rubric still reads as promoted. A recheck re-judges the labelled
runs with the current model (no cache: the cache would answer with the old model's words),
builds the calibration report again, and tests whether kappa fell:

    z = (kappa_then - kappa_now) / sqrt(se_then² + se_now²),  one-sided p = 1 - Φ(z)

with each standard error read off its 95% interval (width / 3.92). The two kappas come from
the same labelled runs, so they are positively correlated and the true standard error of
the difference is smaller than this one: the test is conservative — it raises no false
alarm more often than ``alpha`` but needs a clear drop to fire. A drop it finds marks the
rubric *stale*: the promotion record gains a ``stale`` entry, ``judgekit rubrics`` and the
monitor show it as stale, and it stops gating until it is calibrated and promoted again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

from judgekit._util.input_paths import is_file
from judgekit._util.number_format import (
    bracketed_interval,
    p_equation,
    setting,
    statistic,
)
from judgekit.errors import CalibrationError, DataError
from judgekit.formats.label import Label
from judgekit.formats.promotion import (
    PromotionRecord,
    StaleMark,
    load_promotion_record,
    write_promotion_record,
)
from judgekit.formats.rubric import Rubric
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.stats.proportions import Z_95

if TYPE_CHECKING:
    from judgekit.calibration import CalibrationReport
    from judgekit.monitoring.selective_recheck import GuaranteeCheck

_WIDTH_95 = 2 * Z_95  # a 95% interval is this many standard errors wide


@dataclass
class RecheckResult:
    rubric_id: str
    rubric_version: str
    model: str
    n_then: int
    kappa_then: float
    ci_then: tuple[float, float]
    n_now: int
    kappa_now: float | None
    ci_now: tuple[float, float] | None
    p_value: float | None
    alpha: float
    drifted: bool
    message: str
    report: CalibrationReport
    # The test of a selective promotion's guarantee (see monitoring/selective_recheck.py).
    guarantee: GuaranteeCheck | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "rubric_id": self.rubric_id,
            "rubric_version": self.rubric_version,
            "model": self.model,
            "then": {"n": self.n_then, "kappa": self.kappa_then, "kappa_ci": list(self.ci_then)},
            "now": {
                "n": self.n_now,
                "kappa": self.kappa_now,
                "kappa_ci": list(self.ci_now) if self.ci_now else None,
            },
            "p_value": self.p_value,
            "alpha": self.alpha,
            "drifted": self.drifted,
            "message": self.message,
            "guarantee": None if self.guarantee is None else self.guarantee.as_dict(),
        }


def read_promotion(path: Path) -> PromotionRecord:
    """The promotion record at ``path``; a missing, unreadable or failing one is an error,
    since only a promoted rubric has a figure to compare with."""
    if not is_file(path):
        raise DataError("no promotion record: only a promoted rubric can be rechecked", path=path)
    record = load_promotion_record(path)
    for name in ("kappa", "kappa_ci", "n", "rubric_version"):
        value = _interval(record.kappa_ci) if name == "kappa_ci" else getattr(record, name)
        if value is None:
            raise DataError(
                "the promotion record has no value; promote again", path=path, field=name
            )
    if not record.promotable:
        raise DataError("the record is not a promotion", path=path, field="promotable")
    if record.stale is not None:
        raise DataError(
            f"marked stale on {record.stale.at or '?'}: label, calibrate and promote "
            "it again before rechecking",
            path=path,
            field="stale",
        )
    return record


def labelled_runs(
    labels: Mapping[tuple[str, str], Label], found: Mapping[str, Run]
) -> tuple[list[Run], list[str]]:
    """The labelled runs that were found, and the ids of those that were not."""
    wanted = sorted({run_id for run_id, _ in labels})
    return [found[r] for r in wanted if r in found], [r for r in wanted if r not in found]


def compare_kappas(
    record: PromotionRecord, report: CalibrationReport, *, alpha: float
) -> RecheckResult:
    """The drift test of the module docstring, on the record (as :func:`read_promotion`
    returns it) and the new report."""
    then, n_then, ci_then = record.kappa, record.n, _interval(record.kappa_ci)
    assert then is not None and n_then is not None and ci_then is not None  # read_promotion
    now = report.kappa
    ci_now = _interval(report.kappa_ci)
    p_value: float | None = None
    if now is not None and ci_now is not None:
        se_then = (ci_then[1] - ci_then[0]) / _WIDTH_95
        se_now = (ci_now[1] - ci_now[0]) / _WIDTH_95
        se = math.sqrt(se_then**2 + se_now**2)
        drop = then - now
        p_value = 1 - NormalDist().cdf(drop / se) if se > 0 else float(drop <= 0)
    drifted = p_value is not None and p_value < alpha
    shown_now = statistic(now)
    interval = "" if ci_now is None else f" {bracketed_interval(*ci_now)}"
    verdict = "dropped" if drifted else "held"
    tested = "" if p_value is None else f", one-sided {p_equation(p_value)}, alpha {setting(alpha)}"
    message = (
        f"{report.rubric_id} ({report.model}): kappa {verdict}: {statistic(then)} "
        f"{bracketed_interval(*ci_then)} on {n_then} labels at promotion, "
        f"{shown_now}{interval} on {report.n} now{tested}"
    )
    return RecheckResult(
        rubric_id=report.rubric_id,
        rubric_version=report.rubric_version,
        model=report.model,
        n_then=n_then,
        kappa_then=then,
        ci_then=ci_then,
        n_now=report.n,
        kappa_now=now,
        ci_now=ci_now,
        p_value=p_value,
        alpha=alpha,
        drifted=drifted,
        message=message,
        report=report,
    )


def _interval(bounds: Sequence[float | None] | None) -> tuple[float, float] | None:
    if bounds is None or bounds[0] is None or bounds[1] is None:
        return None
    return (float(bounds[0]), float(bounds[1]))


def recheck_report(
    rubric: Rubric, verdicts: Sequence[Verdict], labels: Mapping[tuple[str, str], Label]
) -> CalibrationReport:
    """The calibration report of the fresh verdicts (as ``judgekit calibrate`` builds it)."""
    from judgekit.calibration import build_report

    try:
        return build_report(rubric, verdicts, labels, sources={"verdicts": "recheck"})
    except CalibrationError as exc:
        raise CalibrationError(f"recheck of {rubric.id}: {exc}") from None


def mark_stale(path: Path, record: PromotionRecord, result: RecheckResult) -> PromotionRecord:
    """Write the ``stale`` entry into the promotion record (atomically); return the record."""
    updated = record.marked_stale(
        StaleMark(
            at=datetime.now(UTC).isoformat(timespec="seconds"),
            reason=f"judge drift: {result.message}",
            kappa_now=result.kappa_now,
            kappa_ci_now=list(result.ci_now) if result.ci_now else None,
            n_now=result.n_now,
            p_value=result.p_value,
        )
    )
    write_promotion_record(path, updated)
    return updated
