"""The labels a held-out test run counts with: those it had when it was assigned.

Labels are evidence, kept as they were: a label given or changed after a run went to the
test side is a new fact, shown (``relabelled``) and never counted, so nobody can move a test
label toward the judge after reading its verdict. The split file records each run's
labels at assignment (:mod:`judgekit.formats.split_file`); a run assigned while its
labellers tied counts against the judge (:func:`judgekit.calibration.join.against_judge`).
"""

from __future__ import annotations

from collections.abc import Mapping

from judgekit.calibration.join import AssignedLabel
from judgekit.calibration.selection import majority
from judgekit.calibration.split import Split
from judgekit.formats.label import Label
from judgekit.formats.split_file import SplitAssignment

__all__ = ["assigned_labels", "relabelled_since_assignment"]

LabelsByRun = Mapping[str, Mapping[str, Label]]  # run id → labeller → current label


def assigned_labels(split: Split, labels: LabelsByRun) -> dict[str, AssignedLabel]:
    """Each test run of ``labels`` → its label at assignment (its current labels stand in
    for the tied labels of an assignment that did not record them). A line that
    records no label at all (written by hand or by another tool) has none to keep: its run
    counts with its current labels."""
    found: dict[str, AssignedLabel] = {}
    for run in labels:
        line = split.assigned.get(run)
        if line is None or line.side != "test" or not _records_labels(line):
            continue
        if line.label is not None:
            found[run] = AssignedLabel(line.label)
            continue
        given = line.labels
        if given is None:
            given = {who: label.label for who, label in labels.get(run, {}).items()}
        found[run] = AssignedLabel(None, tuple(dict.fromkeys(given.values())))
    return found


def relabelled_since_assignment(split: Split, labels: LabelsByRun) -> list[str]:
    """The test runs of ``labels`` whose labels now differ from those they were assigned with
    (a labeller's label changed or added; for an assignment that did not record each
    labeller's, the majority changed)."""
    changed = []
    for run in labels:
        line = split.assigned.get(run)
        if line is None or line.side != "test" or not _records_labels(line):
            continue
        now = {who: label.label for who, label in labels.get(run, {}).items()}
        if line.labels is not None:
            if now != line.labels:
                changed.append(run)
        elif majority(list(now.values())) != line.label:
            changed.append(run)
    return changed


def _records_labels(line: SplitAssignment) -> bool:
    return line.labels is not None or "label" in line.model_fields_set
