"""Writing a promotion record as ``judgekit promote`` does: the record it replaces is
checked first (one that does not hold is not carried into ``previous``), the new one is
checked before it is written and again as read back from its file.

::

    written = write_promotion(report, rubric, stored_in=None)
    written.path, written.replaced_invalid   # the file; why the old record did not hold
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit.calibration.promotion import (
    promotion_record,
    promotion_record_path,
    replaced_record,
)
from judgekit.calibration.promotion_check import verify_promotion_record
from judgekit.errors import CalibrationError, DataError
from judgekit.formats.promotion import (
    PromotionRecord,
    load_promotion_record,
    write_promotion_record,
)
from judgekit.formats.rubric import Rubric

if TYPE_CHECKING:
    from judgekit.calibration.report import CalibrationReport

__all__ = ["WrittenPromotion", "write_promotion"]


@dataclass(frozen=True)
class WrittenPromotion:
    """The record written, where, and why the record it replaced did not hold (if not)."""

    record: PromotionRecord
    path: Path
    replaced_invalid: str | None


def write_promotion(
    report: CalibrationReport, rubric: Rubric, *, stored_in: str | None
) -> WrittenPromotion:
    """Write the promotion record of ``report`` (promotable) beside ``rubric``'s file;
    ``stored_in``: the store it is about to be recorded in. A :class:`CalibrationError`,
    and nothing written, when the new record would not hold."""
    folder = rubric.source.parent if rubric.source is not None else Path("rubrics")
    path = promotion_record_path(rubric, folder)
    replacing, replaced_invalid = _replaced(path, rubric, folder)
    record = promotion_record(report, replacing=replacing, rubrics_dir=folder, stored_in=stored_in)
    _check(record, rubric, folder, "would not hold; nothing written")
    write_promotion_record(path, record)
    written = load_promotion_record(path)
    if written != record:
        raise CalibrationError(f"{path} does not read back as the record written")
    _check(written, rubric, folder, "does not hold as read back")
    return WrittenPromotion(written, path, replaced_invalid)


def _replaced(
    path: Path, rubric: Rubric, folder: Path
) -> tuple[PromotionRecord | None, str | None]:
    """The record a promotion replaces, if it holds (of another version is fine), and why
    not when it does not."""
    previous = replaced_record(path)
    if previous is None or not previous.promotable:
        return previous, None
    try:
        problems = verify_promotion_record(previous, rubric, rubrics_dir=folder)
    except DataError as exc:  # a file it names cannot be read
        return None, str(exc)
    invalid = [problem.text for problem in problems if not problem.stale]
    if invalid:
        return None, invalid[0]
    return previous, None


def _check(record: PromotionRecord, rubric: Rubric, folder: Path, what: str) -> None:
    problems = verify_promotion_record(record, rubric, rubrics_dir=folder, check_store=False)
    if problems:
        raise CalibrationError(f"the promotion record of {rubric.id} {what}: {problems[0].text}")
