"""Verdicts and labels as LangSmith feedback: one JSON object a line, each the keyword
arguments of the LangSmith SDK's ``Client.create_feedback`` (``client.create_feedback(**line)``).

A verdict is feedback from a model (``feedback_source_type: "model"``), a hand label from a
person through the API (``"api"``). The feedback is on the run's LangSmith run (``span_id``)
or, failing that, its trace's root run (``trace_id``), in the run's project (``session_id``,
as LangSmith names a project; null when the import did not record it); ``feedback_id`` is
stable, so exporting twice does not count a verdict twice.
"""

from __future__ import annotations

import json
from typing import IO, Any

from judgekit.exporters.items import (
    ExportItem,
    boolean_value,
    item_details,
    item_uuid,
    score_kind,
)
from judgekit.exporters.trace_links import uuid_or_none

__all__ = ["feedback_record", "is_linked", "project_of", "write_langsmith"]


def project_of(item: ExportItem) -> str | None:
    """The LangSmith project the run was traced to, which run feedback names."""
    return uuid_or_none(item.trace.project_id) if item.trace is not None else None


def _run_and_trace(item: ExportItem) -> tuple[str | None, str | None]:
    if item.trace is None:
        return None, None
    trace_id = uuid_or_none(item.trace.trace_id)
    run_id = uuid_or_none(item.trace.span_id) or trace_id  # a trace's id is its root run's
    return run_id, trace_id


def _score_and_value(item: ExportItem) -> dict[str, Any]:
    if item.score is None:
        # Unscored or abstained: the status as the value, never a score.
        return {"score": None, "value": item.status}
    kind = score_kind(item.score)
    if kind == "numeric":
        return {"score": item.score, "value": None}
    if kind == "boolean":
        return {"score": int(boolean_value(str(item.score))), "value": item.score}
    return {"score": None, "value": item.score}


def feedback_record(item: ExportItem) -> dict[str, Any]:
    """The ``create_feedback`` keyword arguments for one verdict or label."""
    run_id, trace_id = _run_and_trace(item)
    record: dict[str, Any] = {
        "run_id": run_id,
        "trace_id": trace_id,
        "session_id": project_of(item),
        "key": item.rubric_id,
        **_score_and_value(item),
        "comment": item.reason,
        "source_info": item_details(item),
        "feedback_source_type": "model" if item.kind == "verdict" else "api",
        "feedback_id": item_uuid(item),
    }
    if item.status == "unscored":
        record["error"] = True  # the judge's answer could not be read
    return record


def is_linked(item: ExportItem) -> bool:
    """Whether the feedback names a LangSmith run."""
    return _run_and_trace(item)[0] is not None


def write_langsmith(items: list[ExportItem], out: IO[str]) -> None:
    """One ``create_feedback`` call's arguments a line."""
    for item in items:
        out.write(json.dumps(feedback_record(item), ensure_ascii=False) + "\n")
