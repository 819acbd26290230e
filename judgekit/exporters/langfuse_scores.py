"""Verdicts and labels as Langfuse scores: one JSON object a line, each the body of
Langfuse's ``POST /api/public/scores`` (``CreateScoreRequest``).

pass/fail is a ``BOOLEAN`` score (1 or 0), a likert score ``NUMERIC``, a choice or A/B/tie
``CATEGORICAL``; an unscored or abstained verdict is a ``TEXT`` score holding its status, so
it never counts as a pass or a fail. The score is on the run's trace (``traceId``) and
observation (``observationId``) when the run carries them; its ``id`` is stable, so a
second export replaces the score rather than adding one.
"""

from __future__ import annotations

import json
from datetime import UTC
from typing import IO, Any

from judgekit.exporters.items import (
    ExportItem,
    boolean_value,
    item_details,
    item_uuid,
    score_kind,
)

__all__ = ["is_linked", "score_record", "write_langfuse"]

_DATA_TYPES = {"boolean": "BOOLEAN", "numeric": "NUMERIC", "categorical": "CATEGORICAL"}


def _value(item: ExportItem) -> dict[str, Any]:
    if item.score is None:
        return {"value": item.status, "dataType": "TEXT"}
    kind = score_kind(item.score)
    value: float | str = item.score
    if kind == "boolean":
        value = boolean_value(str(item.score))
    return {"value": value, "dataType": _DATA_TYPES[kind]}


def score_record(item: ExportItem) -> dict[str, Any]:
    """The ``CreateScoreRequest`` body of one verdict or label."""
    record: dict[str, Any] = {"id": item_uuid(item)}
    if item.trace is not None:
        record["traceId"] = item.trace.trace_id
        if item.trace.span_id is not None:
            record["observationId"] = item.trace.span_id
    record |= {"name": item.rubric_id, **_value(item)}
    if item.reason is not None:
        record["comment"] = item.reason
    record["metadata"] = item_details(item)
    # A judge's verdict comes through the API; a person's label is an annotation.
    record["source"] = "API" if item.kind == "verdict" else "ANNOTATION"
    at = item.at if item.at.tzinfo is not None else item.at.replace(tzinfo=UTC)
    record["timestamp"] = at.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return record


def is_linked(item: ExportItem) -> bool:
    """Whether the score names a Langfuse trace."""
    return item.trace is not None


def write_langfuse(items: list[ExportItem], out: IO[str]) -> None:
    """One score body a line."""
    for item in items:
        out.write(json.dumps(score_record(item), ensure_ascii=False) + "\n")
