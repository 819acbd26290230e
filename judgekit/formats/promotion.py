"""The promotion record (``rubrics/<id>.promotion.json``): the calibration figures a rubric
version was promoted on, written by ``judgekit promote`` and marked stale by a recheck.

A record carries what it was decided on, so it can be checked
(:func:`judgekit.calibration.verify_promotion_record`): ``evidence``, each compared test run
with the human label counted, the judge's score and its confidence; ``sources``, the byte
length and sha256 of the labels file and the split file at promotion (both append-only, so
later lines keep the record valid while an edit in place does not) and the sha256 of the
verdicts used; and ``digest``, the sha256 of its own content (:func:`record_digest`), so an
edit that does not recompute it shows.

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
from judgekit._util.canonical_json import json_digest
from judgekit._util.input_paths import read_bytes
from judgekit._util.jsonl import parse_json, validation_error_to_data_error
from judgekit.errors import DataError
from judgekit.formats.rubric import Rubric

__all__ = [
    "UNREADABLE",
    "ComparedPair",
    "ConfidenceRecord",
    "CriterionRecord",
    "FileDigest",
    "PreviousPromotion",
    "PromotionRecord",
    "PromotionSources",
    "SelectiveRecord",
    "SplitRecord",
    "StaleMark",
    "load_promotion_record",
    "parse_promotion_record",
    "promotion_record_path",
    "record_digest",
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


class ConfidenceRecord(BaseModel):
    """Whether the judge's confidence meant what it said on the compared test runs whose
    verdict had one: the expected calibration error and the Brier score with their
    bootstrap intervals (recomputed from the evidence's confidences when checked)."""

    model_config = ConfigDict(extra="allow")

    n: int | None = None
    n_bins: int | None = None
    ece: float | None = None
    ece_ci: list[float] | None = None
    brier: float | None = None
    brier_ci: list[float] | None = None


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


class ComparedPair(BaseModel):
    """One compared test run: the human label counted, the judge's score, and the
    verdict's confidence (null when it has none)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    human: str | int
    judge: str | int
    confidence: float | None = None


class FileDigest(BaseModel):
    """An append-only file as it was at promotion: its path, the length of its whole lines
    and their sha256."""

    model_config = ConfigDict(extra="allow")

    file: str | None = None
    length: int | None = None
    sha256: str | None = None


class VerdictsDigest(BaseModel):
    """The verdicts compared: where they were read, how many, and the sha256 of their
    canonical JSON, one line each, in the evidence's run order."""

    model_config = ConfigDict(extra="allow")

    source: str | None = None
    n: int | None = None
    sha256: str | None = None


class PromotionSources(BaseModel):
    """What a promotion was computed from."""

    model_config = ConfigDict(extra="allow")

    labels: FileDigest | None = None
    split: FileDigest | None = None
    verdicts: VerdictsDigest | None = None


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
    confidence_calibration: ConfidenceRecord | None = None
    previous: PreviousPromotion | None = None
    promoted_at: str | None = None
    evidence: list[ComparedPair] | None = None
    sources: PromotionSources | None = None
    stored_in: str | None = None  # the store the promotion was recorded in, if any
    stale: StaleMark | None = None
    digest: str | None = None  # record_digest of the rest

    @property
    def promoted_time(self) -> datetime | None:
        return None if self.promoted_at is None else datetime.fromisoformat(self.promoted_at)

    def as_json(self) -> dict[str, Any]:
        """The record as written: the fields it was given (or read with), in order."""
        return self.model_dump(mode="json", exclude_unset=True)

    def marked_stale(self, mark: StaleMark) -> PromotionRecord:
        """A copy carrying ``mark`` (and sealed again): the judge drifted, the rubric no
        longer gates."""
        return self.model_copy(update={"stale": mark}).sealed()

    def sealed(self) -> PromotionRecord:
        """A copy whose ``digest`` is the digest of its content."""
        return self.model_copy(update={"digest": record_digest(self.as_json())})


def record_digest(data: dict[str, Any], *, leave_out: tuple[str, ...] = ()) -> str:
    """The sha256 of a record's content (as written: :meth:`PromotionRecord.as_json`),
    its ``digest`` and the fields ``leave_out`` left out."""
    return json_digest({k: v for k, v in data.items() if k not in ("digest", *leave_out)})


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


def promotion_record_path(rubric: Rubric, rubrics_dir: Path) -> Path:
    """Where the rubric's promotion record lives: ``<id>.promotion.json`` in ``rubrics_dir``."""
    return rubrics_dir / f"{rubric.id}.promotion.json"


def load_promotion_record(path: str | Path) -> PromotionRecord:
    """The record at ``path``; a file that cannot be read or parsed is a DataError naming
    it (and the field at fault)."""
    return parse_promotion_record(read_bytes(path), path=path)


def write_promotion_record(path: str | Path, record: PromotionRecord) -> None:
    """Write ``record`` to ``path`` atomically: the file appears whole or not at all."""
    with atomic_writer(path) as fh:
        fh.write(json.dumps(record.as_json(), indent=2, ensure_ascii=False) + "\n")
