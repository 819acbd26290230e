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
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit._util.input_paths import is_file
from judgekit.calibration.agreement_statistics import IntervalMethod
from judgekit.calibration.assigned_labels import assigned_labels, relabelled_since_assignment
from judgekit.calibration.compare import build_comparison
from judgekit.calibration.join import AssignedLabel, labels_by_run
from judgekit.calibration.report import CalibrationReport, build_report
from judgekit.calibration.split import (
    EXAMPLE_SPENT,
    MeasuredOn,
    Split,
    example_runs,
    load_split,
    mark_spent,
    restrict_labels,
)
from judgekit.errors import CalibrationError, DataError
from judgekit.formats.label import Label, item_hashes, labels_path, read_labels, runs_with_inputs
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import effective_rubric
from judgekit.formats.split_file import read_split_file
from judgekit.formats.verdict import Verdict, load_verdicts
from judgekit.formats.verdict_scores import ScaleCheck

if TYPE_CHECKING:
    from judgekit.store import Store

__all__ = [
    "JudgedVerdicts",
    "calibration_report",
    "load_calibration",
    "read_judged_verdicts",
    "spend_measured_test_labels",
]


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
    as_assigned: Mapping[str, AssignedLabel] | None = None,
) -> CalibrationReport:
    """The report of ``rubric`` on ``judged`` and the current ``labels`` (read from
    ``labels_file``; the runs of ``as_assigned`` count with the label they were assigned
    with); with ``against``, it also compares the two judges (``comparison``)."""
    report = build_report(
        rubric,
        judged.verdicts,
        labels,
        item_hashes=item_hashes,
        interval_method=interval_method,
        sources={"labels": str(labels_file), "verdicts": judged.source},
        as_assigned=as_assigned,
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
    measure_on: MeasuredOn = "dev",
    fresh_only: bool = False,
    new_split: bool = False,
    judged: JudgedVerdicts | None = None,
) -> CalibrationReport:
    """The calibration report of ``rubric``, read from its files: the labels of
    ``labels_file`` (default ``labels/<rubric_id>.jsonl``, which must exist), the verdicts
    (``judged``, else as :func:`read_judged_verdicts` reads them) and, with ``runs_files`` (and the suites
    ``tasks_path`` names, when the labels were given with their tasks' inputs), the runs'
    current texts, to tell stale labels. ``warn`` hears what the labels file says is wrong
    with it as soon as it is read.

    Only the labels of one side of the split are measured (``measure_on``; ``fresh_only``:
    the test labels nobody has seen): labelled runs not yet in the split file are assigned
    and recorded first, and test runs that are one of the rubric's examples are spent. Test
    runs count with the labels they were assigned with. ``new_split`` starts a split whose
    file was lost (:func:`~judgekit.calibration.split.load_split`)."""
    path = labels_file or labels_path("labels", rubric.id)
    if not is_file(path):
        raise DataError(
            f"no labels for {rubric.id}; give some with `judgekit label RUNS --rubric "
            f"{rubric.id} --labeler NAME`, or pass --labels FILE",
            path=path,
        )
    log = read_labels(path, rubric)
    # Every input is read and checked before the split file is written: a command that
    # stops on a bad file leaves the split as it found it.
    split = load_split(rubric, path, log.current, record=False, new_split=new_split)
    if warn is not None:
        for warning in [*log.warnings, *read_split_file(split.path).warnings]:
            warn(warning)
    examples = example_runs(rubric, runs_with_inputs(runs_files, tasks_path)) if runs_files else []
    hashes = item_hashes(runs_files, tasks_path)
    if judged is None:
        judged = read_judged_verdicts(
            rubric, against=against, verdicts_file=verdicts_file, store=store
        )
    split = _record_split(rubric, path, log.current, split, examples, new_split=new_split)
    measured = split.runs_of(measure_on, fresh_only=fresh_only)
    labels = log.current if measured is None else restrict_labels(log.current, measured)
    if not labels:
        raise CalibrationError(nothing_to_measure(rubric, split, measure_on, log.current))
    by_run = labels_by_run(labels)
    as_assigned = assigned_labels(split, by_run)
    report = calibration_report(
        rubric,
        judged,
        labels,
        labels_file=path,
        item_hashes=hashes,
        interval_method=interval_method,
        against=against,
        as_assigned=as_assigned,
    )
    tied = [run for run, assigned in as_assigned.items() if assigned.label is None]
    summary = split.summary(
        {run for run, _ in log.current},
        by_run,
        relabelled=relabelled_since_assignment(split, by_run),
        tied=tied,
    )
    return dataclasses.replace(report, measured_on=measure_on, split=summary)


def _record_split(
    rubric: Rubric,
    labels_file: Path,
    labels: Mapping[tuple[str, str], Label],
    planned: Split,
    examples: Sequence[str],
    *,
    new_split: bool = False,
) -> Split:
    """Record the split ``planned`` in memory (and spend the test runs that are rubric
    examples); the split as recorded, which another writer may have extended meanwhile —
    never to move a run, since the first assignment of a run wins."""
    split = load_split(rubric, labels_file, labels, new_split=new_split)
    if examples and mark_spent(split.path, examples, EXAMPLE_SPENT):
        split = load_split(rubric, labels_file, labels, record=False)
    if any(split.side(run) != side for run, side in planned.sides.items()):
        raise CalibrationError(
            f"the split of {rubric.id} ({split.path}) changed while it was read; run again"
        )
    return split


def spend_measured_test_labels(report: CalibrationReport) -> int:
    """Mark spent every test label ``report`` was computed from: a person is about to read
    figures (and disagreements) computed from them beside the judge's verdicts. All of
    them, never the disagreements alone: removing only disagreements would leave the
    agreements for promotion, and bias its kappa upward. Returns how many were newly
    spent."""
    if report.split is None or report.measured_on == "dev":
        return 0
    why = f"measured beside the judge's verdicts by calibrate --split {report.measured_on}"
    return mark_spent(Path(report.split.file), report.split.runs, why)


def nothing_to_measure(
    rubric: Rubric,
    split: Split,
    measure_on: MeasuredOn,
    labels: Mapping[tuple[str, str], Label],
) -> str:
    """Why a side of the split has no labels to measure, and what to do."""
    summary = split.summary({run for run, _ in labels})
    sides = (
        f"of {len(labels)} labelled runs, {summary.n_dev} are dev and {summary.n_test} test "
        f"({summary.n_test_spent} spent)"
    )
    if measure_on == "dev":
        return (
            f"no dev labels for {rubric.id}: {sides}; `judgekit label` sends new labels to the "
            "side that is short, or --split test measures the test labels (spending every "
            "one it measures)"
        )
    more = math.ceil(rubric.promotion.min_labels / split.test_share)
    return (
        f"no fresh test labels for {rubric.id}: {sides}; `judgekit label` must add about "
        f"{more} more labels for the {rubric.promotion.min_labels} the policy asks (a share "
        f"{split.test_share} of new labels goes to test)"
    )
