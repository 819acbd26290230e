"""Human labels from LangSmith: its feedback, as the langsmith SDK gives it
(``client.list_feedback``'s ``Feedback`` models dumped with ``model_dump_json``, or the
API's JSON), one per line or in a JSON list.

A feedback is a person's when its ``feedback_source`` is of type ``app`` (the UI, an
annotation queue) or ``api`` and names a user (``user_id``, else ``user_name``); type
``model`` is an LLM judge's. Its value is ``score`` (a number or true/false), else
``value`` (a category). Feedback on a trace's root run labels the run of that trace (the
run importer's id is the root's, which is the trace id); on a child run, one step of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judgekit.importers.human_labels.records import (
    PlatformLabel,
    Target,
    label_time,
    value_text,
)
from judgekit.importers.locations import Location, describe_json, optional_string, required_string
from judgekit.importers.trace_records import Record, iter_records, optional_object

__all__ = ["read_langsmith_feedback"]

_HUMAN_SOURCES = ("app", "api")


def read_langsmith_feedback(paths: Sequence[Path]) -> list[PlatformLabel]:
    """The feedback of ``paths`` as labels."""
    return [
        _label(record)
        for path in paths
        for record in iter_records(path, ("feedback", "data"), "a LangSmith feedback")
    ]


def _label(record: Record) -> PlatformLabel:
    data, where = record.data, record.where
    source = optional_object(data, "feedback_source", where) or {}
    kind = optional_string(source, "type", where.key("feedback_source"))
    user = _user(source, where.key("feedback_source"))
    targets, left_out = _targets(data, where)
    value, value_where = _value(data, where)
    if value is None:
        left_out = left_out or "a correction or comment with no score or value"
    return PlatformLabel(
        where=value_where,
        name=required_string(data, "key", where),
        value=value or "",
        targets=targets,
        labeller=f"langsmith:{user}" if user else None,
        at=label_time(data.get("modified_at") or data.get("created_at"), where.key("created_at")),
        note=optional_string(data, "comment", where),
        human=kind in _HUMAN_SOURCES and user is not None,
        left_out=left_out,
    )


def _user(source: dict[str, Any], where: Location) -> str | None:
    user = source.get("user_id")
    if user is None:
        return optional_string(source, "user_name", where)
    if not isinstance(user, str) or not user:
        raise where.key("user_id").error(f"expected a user id, got {describe_json(user)}")
    return user


def _targets(data: dict[str, Any], where: Location) -> tuple[tuple[Target, ...], str | None]:
    run = optional_string(data, "run_id", where)
    trace = optional_string(data, "trace_id", where)
    if run is not None and trace is not None and run != trace:
        return (), "feedback on a child run: one step of a trace, not the whole trace"
    target = trace or run
    if target is None:
        return (), "feedback on no run (neither run_id nor trace_id)"
    return (("trace", target),), None


def _value(data: dict[str, Any], where: Location) -> tuple[str | None, Location]:
    for key in ("score", "value"):
        if data.get(key) is not None:
            return value_text(data[key], where.key(key)), where.key(key)
    return None, where.key("score")
