"""The confidence threshold below which a judge abstains: the one its rubric was promoted
selectively at, if it was.

``judgekit promote`` with ``promotion.selective`` writes a threshold into the rubric's
promotion record (``rubrics/<id>.promotion.json``, beside the rubric file). While that record
promotes the rubric's current version — same version, promotable, not marked stale by a
recheck, and holding as the calibration layer checks it — verdicts less confident than the
threshold are abstained. (The record's path is the record format's,
``promotion_record_path``; its check, ``verify_promotion_record``, is the calibration
layer's: judging sits below it, so the caller hands the check in.)
"""

from __future__ import annotations

from collections.abc import Callable

from judgekit.formats.promotion import (
    PromotionRecord,
    load_promotion_record,
    promotion_record_path,
)
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import rubric_version
from judgekit.formats.verdict import Verdict

__all__ = ["RecordCheck", "decide_abstention", "promoted_threshold"]

# Why a promotion record of a rubric does not hold; None when it does.
RecordCheck = Callable[[PromotionRecord, Rubric], str | None]


def promoted_threshold(rubric: Rubric, *, check: RecordCheck | None) -> float | None:
    """The threshold of the rubric's selective promotion; None when it has none (no record,
    another version, not promotable, stale, not holding by ``check`` — or no ``check``: an
    unchecked record is not trusted — or promoted for every item). A record that cannot be
    read is a DataError naming it: judging must not silently stop abstaining."""
    if rubric.source is None:
        return None
    path = promotion_record_path(rubric, rubric.source.parent)
    if not path.is_file():
        return None
    record = load_promotion_record(path)
    if (
        not record.promotable
        or record.stale is not None
        or record.rubric_version != rubric_version(rubric)
        or check is None
        or check(record, rubric) is not None
    ):
        return None
    return _threshold(getattr(record, "selective", None))


def _threshold(selective: object) -> float | None:
    """``selective.threshold``, whether the record's field is typed or kept as read."""
    if isinstance(selective, dict):
        threshold = selective.get("threshold")
    else:
        threshold = getattr(selective, "threshold", None)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        return None
    return float(threshold)


def decide_abstention(verdict: Verdict, threshold: float | None) -> Verdict:
    """``verdict`` scored or abstained as ``threshold`` decides now (an unscored one as is):
    abstained when its confidence is below the threshold or unknown, scored without one."""
    if verdict.status == "unscored":
        return verdict
    below = threshold is not None and (verdict.confidence is None or verdict.confidence < threshold)
    status = "abstained" if below else "scored"
    return verdict if status == verdict.status else verdict.model_copy(update={"status": status})
