"""Which labels the view keeps out of sight: those of held-out test runs nobody has read
beside the judge's verdict.

Every page that shows a label may show the judge's verdict on the same run, so a label on
the test side of its rubric's split is shown only once it is spent — by ``calibrate
--split test``, by ``--reveal``, or here, by asking to see it, which spends it first. What
counts as held out never depends on whether the judge agreed: the split is read (its
unrecorded assignments as ``calibrate`` would record them), never the verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judgekit.calibration.split import load_split, mark_spent
from judgekit.errors import JudgekitError
from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric

__all__ = ["VIEW_SPENT", "HeldOut", "held_out", "spend_in_view"]

VIEW_SPENT = "shown in judgekit view beside the judge's verdict"


@dataclass(frozen=True)
class HeldOut:
    """The runs whose labels are hidden, and why the split could not be read (then every
    label of the rubric is hidden)."""

    runs: frozenset[str]
    problem: str | None = None

    def hides(self, run_id: str) -> bool:
        return self.problem is not None or run_id in self.runs


def held_out(rubric: Rubric, labels_file: Path, current: dict[tuple[str, str], Label]) -> HeldOut:
    """The fresh test runs of ``rubric``'s split, read without writing it."""
    try:
        split = load_split(rubric, labels_file, current, record=False)
    except JudgekitError as exc:
        return HeldOut(frozenset(), problem=str(exc))
    return HeldOut(split.fresh_test)


def spend_in_view(
    rubric: Rubric, labels_file: Path, current: dict[tuple[str, str], Label], run_id: str
) -> int:
    """Record the split (a labelled run not yet in it is assigned first), then spend the
    test label of ``run_id``; returns how many labels were newly spent (0 or 1)."""
    split = load_split(rubric, labels_file, current, record=True)
    return mark_spent(split.path, [run_id], VIEW_SPENT)
