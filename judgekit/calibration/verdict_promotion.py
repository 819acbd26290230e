"""Which promotion a verdict stands on, by the rule the gate and the monitor count verdicts
by: its rubric is promoted (:func:`~judgekit.calibration.promotion.rubric_status`: a record
that holds, of the rubric's current version and judge model, not marked stale) and the
verdict is of that version and that judge model. Any other verdict stands on none, and is
told why: a promotion is never lent to a verdict of another version or judge.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from judgekit.calibration.promotion import record_status, rubric_status
from judgekit.formats.promotion import (
    PromotionRecord,
    load_promotion_record,
    promotion_record_path,
)
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import find_rubric, rubric_version
from judgekit.formats.verdict import Verdict

__all__ = ["VerdictPromotions"]


@dataclass(frozen=True)
class _Promoted:
    record: PromotionRecord
    path: Path
    version: str
    model: str


class VerdictPromotions:
    """The promotion each verdict stands on (called with the verdict): the record and its
    file, or why none. Each rubric's record is read and checked once, when a verdict of it
    is first asked about."""

    def __init__(self, rubrics: Iterable[Rubric] = (), *, rubrics_dir: Path = Path("rubrics")):
        """``rubrics``: those given; a verdict of another rubric finds its rubric by id in
        ``rubrics_dir``."""
        self._rubrics = {rubric.id: rubric for rubric in rubrics}
        self._rubrics_dir = rubrics_dir
        self._found: dict[str, _Promoted | str] = {}

    def __call__(self, verdict: Verdict) -> tuple[PromotionRecord, Path] | str:
        found = self._found.get(verdict.rubric_id)
        if found is None:
            found = self._found[verdict.rubric_id] = self._promotion(verdict.rubric_id)
        if isinstance(found, str):
            return found
        if verdict.rubric_version != found.version:
            return (
                f"judged at rubric version {verdict.rubric_version}; "
                f"{verdict.rubric_id} is promoted at version {found.version}"
            )
        if verdict.model != found.model:
            return f"judged by {verdict.model}; {verdict.rubric_id} is promoted with {found.model}"
        return found.record, found.path

    def _promotion(self, rubric_id: str) -> _Promoted | str:
        rubric = self._rubrics.get(rubric_id) or find_rubric(rubric_id, self._rubrics_dir)
        if rubric is None:
            return f"no rubric file of {rubric_id} in {self._rubrics_dir} to check a promotion by"
        folder = rubric.source.parent if rubric.source is not None else self._rubrics_dir
        status, why = rubric_status(rubric, folder)
        if status != "promoted":
            return f"{rubric_id} is {status}: {why}"
        # The record carried is the one read here, so it is checked again as read.
        path = promotion_record_path(rubric, folder)
        record = load_promotion_record(path)
        status, why = record_status(record, rubric, folder)
        if status != "promoted" or record.model is None:
            return f"{rubric_id} is {status}: {why}"
        return _Promoted(record, path, rubric_version(rubric), record.model)
