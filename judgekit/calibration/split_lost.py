"""A split file that went missing after the labels were split: what shows it existed,
and how to recover. A split is never rebuilt silently over labels that were read."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from judgekit.calibration.labellers import natural_key
from judgekit.errors import DataError
from judgekit.formats.label import Label
from judgekit.formats.promotion import load_promotion_record, promotion_record_path
from judgekit.formats.rubric import Rubric

__all__ = ["SplitLostError", "lost_split_evidence", "lost_split_message"]

LabelKey = tuple[str, str]  # (run id, labeller)


class SplitLostError(DataError):
    """The split file is missing although the labels were split before."""


def lost_split_evidence(
    rubric: Rubric, labels: Mapping[LabelKey, Label], *, just_labelled: str | None = None
) -> str | None:
    """What shows ``rubric``'s labels were split before (None when nothing does): a label
    ``judgekit label`` wrote (it records ``revealed``, and assigns each run as it labels),
    other than the one of ``just_labelled`` it has just written; or a promotion record."""
    written = sorted(
        (key for key, label in labels.items() if label.revealed is not None),
        key=lambda key: natural_key(key[0]),
    )
    others = [key for key in written if key[0] != just_labelled]
    if others:
        run, labeler = others[0]
        return (
            f"{len(others)} labels were written by `judgekit label`, which splits as it "
            f"labels (the first: run {run!r} by {labeler!r})"
        )
    if rubric.source is not None:
        record = promotion_record_path(rubric, rubric.source.parent)
        if _measured_on_a_split(record):
            return f"the promotion record {record} was measured on a split"
    return None


def lost_split_message(rubric: Rubric, path: Path, evidence: str) -> str:
    """The error of a split file that is missing after the labels were split."""
    return (
        f"the split file is missing, but {rubric.id}'s labels were split before: {evidence}. "
        f"Restore it (`git checkout -- {path}`, or from a backup): a new split would put runs "
        "already read on dev into test and forget which test labels were spent. To start a "
        "new split knowingly, pass --new-split to `judgekit calibrate` or `judgekit "
        "promote`: every test label it assigns is spent, so promotion waits for new labels"
    )


def _measured_on_a_split(record: Path) -> bool:
    """Whether a promotion record exists that names a split (one that cannot be read
    counts: what it held is unknown)."""
    if not record.exists():
        return False
    try:
        return load_promotion_record(record).split is not None
    except DataError:
        return True
