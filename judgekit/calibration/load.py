"""Loading a calibration: the hand labels, the verdicts to compare (a verdicts file, or the
store) and the report built from them, as ``judgekit calibrate``, ``judgekit promote`` and
the demo compute it::

    report = load_calibration(rubric, verdicts_file=Path("verdicts.jsonl"))

or step by step::

    judged = read_judged_verdicts(rubric, verdicts_file=Path("verdicts.jsonl"))
    report = calibration_report(rubric, judged, labels, labels_file=path)

A scored verdict whose score is off its rubric's scale is refused (a DataError naming where
it was read), never counted as unscored.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit._util.input_paths import is_file
from judgekit.calibration.compare import build_comparison
from judgekit.calibration.figures import IntervalMethod
from judgekit.calibration.report import CalibrationReport, build_report
from judgekit.errors import DataError
from judgekit.formats.label import Label, item_hashes, labels_path, read_labels
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import effective_rubric
from judgekit.formats.verdict import Verdict, load_verdicts
from judgekit.formats.verdict_scores import ScaleCheck

if TYPE_CHECKING:
    from judgekit.store import Store

__all__ = ["JudgedVerdicts", "calibration_report", "load_calibration", "read_judged_verdicts"]


@dataclass(frozen=True)
class JudgedVerdicts:
    """The verdicts to calibrate on, oldest first, and where they were read."""

    verdicts: list[Verdict]
    source: str  # the file, or ``store <url>``


def read_judged_verdicts(
    rubric: Rubric,
    *,
    against: Rubric | None = None,
    verdicts_file: Path | None = None,
    store: Store | None = None,
) -> JudgedVerdicts:
    """The verdicts of ``verdicts_file``; without one, those of ``rubric`` (and of
    ``against``) in ``store``, or in the store ``JUDGEKIT_DB`` names when none is given.

    Scores are checked against the scales of ``rubric`` and ``against``, under any judge
    model (as ``--model`` would judge them).
    """
    scales = ScaleCheck([rubric, *([against] if against else [])], variant=effective_rubric)
    if verdicts_file is not None:
        return JudgedVerdicts(load_verdicts(verdicts_file, check=scales), str(verdicts_file))
    if store is None:
        from judgekit.store import open_store  # SQLAlchemy loads only when the store is read

        with open_store() as opened:
            judged = _store_verdicts(opened, rubric, against)
    else:
        judged = _store_verdicts(store, rubric, against)
    for verdict in judged.verdicts:
        where = f"{judged.source}, verdict of run {verdict.run_id!r} by {verdict.model}"
        scales.check(verdict, path=where, line=None)
    return judged


def _store_verdicts(store: Store, rubric: Rubric, against: Rubric | None) -> JudgedVerdicts:
    verdicts = store.verdicts(rubric.id)
    if against is not None and against.id != rubric.id:
        verdicts += store.verdicts(against.id)
    return JudgedVerdicts(verdicts, f"store {store.url}")


def calibration_report(
    rubric: Rubric,
    judged: JudgedVerdicts,
    labels: Mapping[tuple[str, str], Label],
    *,
    labels_file: Path,
    item_hashes: Mapping[str, str] | None = None,
    interval_method: IntervalMethod = "analytic",
    against: Rubric | None = None,
) -> CalibrationReport:
    """The report of ``rubric`` on ``judged`` and the current ``labels`` (read from
    ``labels_file``); with ``against``, it also compares the two judges (``comparison``)."""
    report = build_report(
        rubric,
        judged.verdicts,
        labels,
        item_hashes=item_hashes,
        interval_method=interval_method,
        sources={"labels": str(labels_file), "verdicts": judged.source},
    )
    if against is None:
        return report
    comparison = build_comparison(
        rubric, against, judged.verdicts, labels, confidence=rubric.promotion.confidence
    )
    return dataclasses.replace(report, comparison=comparison)


def load_calibration(
    rubric: Rubric,
    *,
    labels_file: Path | None = None,
    verdicts_file: Path | None = None,
    store: Store | None = None,
    runs_files: Sequence[Path] = (),
    tasks_path: Path | None = None,
    interval_method: IntervalMethod = "analytic",
    against: Rubric | None = None,
    warn: Callable[[str], None] | None = None,
) -> CalibrationReport:
    """The calibration report of ``rubric``, read from its files: the labels of
    ``labels_file`` (default ``labels/<rubric_id>.jsonl``, which must exist), the verdicts
    (as :func:`read_judged_verdicts` reads them) and, with ``runs_files`` (and the suites
    ``tasks_path`` names, when the labels were given with their tasks' inputs), the runs'
    current texts, to tell stale labels. ``warn`` hears what the labels file says is wrong
    with it as soon as it is read."""
    path = labels_file or labels_path("labels", rubric.id)
    if not is_file(path):
        raise DataError(
            f"no labels for {rubric.id}; give some with `judgekit label RUNS --rubric "
            f"{rubric.id} --labeler NAME`, or pass --labels FILE",
            path=path,
        )
    log = read_labels(path, rubric)
    if warn is not None:
        for warning in log.warnings:
            warn(warning)
    judged = read_judged_verdicts(rubric, against=against, verdicts_file=verdicts_file, store=store)
    return calibration_report(
        rubric,
        judged,
        log.current,
        labels_file=path,
        item_hashes=item_hashes(runs_files, tasks_path),
        interval_method=interval_method,
        against=against,
    )
