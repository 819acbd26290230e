"""The dev/test split of imported labels: each newly labelled run assigned by the rule
``judgekit label`` assigns by (:func:`judgekit.calibration.split.load_split`, the side its
class is short on), a test run that is one of the rubric's few-shot examples spent, as
:func:`judgekit.calibration.split.assign_label` does for a terminal label.

The split is checked before the labels are written (a hand-edited or lost split file stops
the import with nothing written), and assigned once they are in the labels file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from judgekit.calibration.split import EXAMPLE_SPENT, example_runs, load_split, mark_spent
from judgekit.formats.label import Label, read_labels
from judgekit.formats.rubric import Rubric
from judgekit.formats.run import Run

__all__ = ["assign_imported", "check_split_for_import"]


def check_split_for_import(
    rubric: Rubric,
    labels_file: Path,
    current: Mapping[tuple[str, str], Label],
    new: Iterable[Label],
) -> None:
    """Raise what assigning ``new`` beside the ``current`` labels would raise (a split file
    edited by hand, one lost after labels were split), recording nothing."""
    labels = dict(current)
    labels.update({(label.run_id, label.labeler): label for label in new})
    load_split(rubric, labels_file, labels, record=False)


def assign_imported(rubric: Rubric, labels_file: Path, runs: Iterable[Run]) -> dict[str, int]:
    """Assign the labelled runs not yet split (durably), spend the test labels of ``runs``
    that are the rubric's examples; returns how many of ``runs`` are on each side."""
    given = list(runs)
    split = load_split(rubric, labels_file, read_labels(labels_file, rubric).current)
    examples = example_runs(rubric, [(run, None) for run in given])
    mark_spent(split.path, examples, EXAMPLE_SPENT)
    sides = [split.side(run.run_id) for run in given]
    return {"dev": sides.count("dev"), "test": sides.count("test")}
