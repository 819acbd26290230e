"""The promotion record (``rubrics/<id>.promotion.json``): the calibration figures a rubric
version was promoted on, written by ``judgekit promote`` and marked stale by a recheck.

Every field is optional when read, so a record written by an older judgekit (or by hand)
still reads; a field of the wrong type is a :class:`~judgekit.errors.DataError` naming the
file and the field. A field this version does not know is kept and written back. The file
is JSON indented by two spaces, fields in the order below, non-ASCII text as is.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from judgekit._util.atomic_files import atomic_writer
from judgekit._util.input_paths import read_bytes
from judgekit._util.jsonl import parse_json, validation_error_to_data_error
from judgekit.errors import DataError

__all__ = [
    "UNREADABLE",
    "CriterionRecord",
    "PreviousPromotion",
    "PromotionRecord",
    "SelectiveRecord",
    "SplitRecord",
    "StaleMark",
    "load_promotion_record",
    "parse_promotion_record",
    "write_promotion_record",
]

UNREADABLE = "not a readable promotion record: "  # begins the message of a malformed file

# Counts are whole numbers and figures fractions; a criterion's value and bar are either.
Number = int | float


class CriterionRecord(BaseModel):
    """One promotion criterion as it stood at promotion."""

    model_config = ConfigDict(extra="allow")

    value: Number | None = None
    bar: Number | None = None
    met: bool | None = None
    short_by: Number | None = None
    what: str | None = None


class StaleMark(BaseModel):
    """What a recheck found when the promoted judge had drifted from the labels."""

    model_config = ConfigDict(extra="allow")

    at: str | None = None
    reason: str | None = None
    kappa_now: float | None = None
    kappa_ci_now: list[float] | None = None
    n_now: int | None = None
    p_value: float | None = None


class SplitRecord(BaseModel):
    """The held-out labels a promotion was measured on: the split file, its share, the
    labelled runs by side, and the fresh test runs used (``test_runs``)."""

    model_config = ConfigDict(extra="allow")

    file: str | None = None
    test_share: float | None = None
    n_dev: int | None = None
    n_test: int | None = None
    n_test_fresh: int | None = None
    n_test_spent: int | None = None
    test_runs: list[str] | None = None


class SelectiveRecord(BaseModel):
    """A selective promotion: the confidence threshold below which verdicts abstain, chosen
    so that agreement on the kept ones is at least 1 - alpha with probability 1 - delta."""

    model_config = ConfigDict(extra="allow")

    alpha: float | None = None
    delta: float | None = None
    threshold: float | None = None
    coverage: float | None = None
    agreement_on_kept: float | None = None
    guaranteed_agreement: float | None = None
    n: int | None = None


class PreviousPromotion(BaseModel):
    """The promotion a new version replaced: its version and the test figures it was
    promoted on, so a record tells what an edit did to the figure that decides."""

    model_config = ConfigDict(extra="allow")

    rubric_version: str | None = None
    model: str | None = None
    n: int | None = None
    kappa: float | None = None
    kappa_ci: list[float | None] | None = None
    promoted_at: str | None = None


class PromotionRecord(BaseModel):
    """A promotion: the rubric version and judge, and the figures that cleared the policy.

    ``promoted_at`` is kept as written (ISO 8601, to the second); :attr:`promoted_time`
    reads it as a time.
    """

    model_config = ConfigDict(extra="allow")

    rubric_id: str | None = None
    rubric_version: str | None = None
    promotable: bool = False
    model: str | None = None
    judge: dict[str, Any] | None = None
    n: int | None = None
    n_unscored: int | None = None
    n_tied: int | None = None
    class_balance: dict[str, dict[str, int]] | None = None
    agreement: float | None = None
    kappa: float | None = None
    kappa_ci: list[float | None] | None = None
    interval_method: str | None = None
    ac1: float | None = None
    confusion: dict[str, dict[str, int]] | None = None
    false_pass_rate: float | None = None
    false_fail_rate: float | None = None
    unscored_rate: float | None = None
    policy: dict[str, Any] | None = None
    criteria: dict[str, CriterionRecord] | None = None
    labelers: dict[str, int] | None = None
    split: SplitRecord | None = None
    selective: SelectiveRecord | None = None
    previous: PreviousPromotion | None = None
    promoted_at: str | None = None
    stale: StaleMark | None = None

    @property
    def promoted_time(self) -> datetime | None:
        return None if self.promoted_at is None else datetime.fromisoformat(self.promoted_at)

    def as_json(self) -> dict[str, Any]:
        """The record as written: the fields it was given (or read with), in order."""
        return self.model_dump(mode="json", exclude_unset=True)

    def marked_stale(self, mark: StaleMark) -> PromotionRecord:
        """A copy carrying ``mark``: the judge drifted, the rubric no longer gates."""
        return self.model_copy(update={"stale": mark})


def parse_promotion_record(data: bytes, *, path: str | Path) -> PromotionRecord:
    """The record in ``data`` (the bytes of the file at ``path``)."""
    try:
        raw = parse_json(data)
    except ValueError as exc:  # malformed JSON, or not UTF-8
        raise DataError(f"{UNREADABLE}{exc}", path=path) from None
    if not isinstance(raw, dict):
        raise DataError(f"{UNREADABLE}not a JSON object", path=path)
    try:
        return PromotionRecord.model_validate(raw)
    except ValidationError as exc:
        raise validation_error_to_data_error(exc, path=path, line=None) from None


def load_promotion_record(path: str | Path) -> PromotionRecord:
    """The record at ``path``; a file that cannot be read or parsed is a DataError naming
    it (and the field at fault)."""
    return parse_promotion_record(read_bytes(path), path=path)


def write_promotion_record(path: str | Path, record: PromotionRecord) -> None:
    """Write ``record`` to ``path`` atomically: the file appears whole or not at all."""
    with atomic_writer(path) as fh:
        fh.write(json.dumps(record.as_json(), indent=2, ensure_ascii=False) + "\n")
