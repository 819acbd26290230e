"""Human labels from MLflow: its assessments, as ``mlflow.entities.Feedback`` and
``Assessment`` write them (``to_dictionary()``), one per line or in a JSON list, or the
traces that hold them (``Trace.to_json()``, one per line: ``info.assessments``).

A feedback is a person's when its ``source.source_type`` is ``HUMAN`` (``LLM_JUDGE`` and
``CODE`` are judges and code); its labeller is ``source.source_id``, its value
``feedback.value``, its note ``rationale``. An assessment of a trace labels the run of that
trace (the run importer's id is the trace id, ``tr-...``); of a span (``span_id``), one
step. An expectation (the expected answer), a feedback that records an error and one
overridden by a later assessment (``valid: false``) are not labels of the run.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from judgekit.importers.human_labels.records import PlatformLabel, label_time, value_text
from judgekit.importers.locations import Location, as_object, describe_json, optional_string
from judgekit.importers.trace_records import Record, iter_records, optional_object

__all__ = ["read_mlflow_assessments"]

_KINDS = ("HUMAN", "LLM_JUDGE", "CODE", "SOURCE_TYPE_UNSPECIFIED")


def read_mlflow_assessments(paths: Sequence[Path]) -> list[PlatformLabel]:
    """The assessments of ``paths`` (or of the traces in them) as labels."""
    return [
        _label(record)
        for path in paths
        for trace_or_assessment in iter_records(path, (), "an MLflow trace or assessment")
        for record in _assessments(trace_or_assessment)
    ]


def _assessments(record: Record) -> Iterator[Record]:
    if "info" not in record.data:
        yield record
        return
    where = record.where.key("info")
    info = as_object(record.data["info"], where, "a trace's info")
    listed = info.get("assessments") or []
    if not isinstance(listed, list):
        raise where.key("assessments").error(f"expected a list, got {describe_json(listed)}")
    for index, item in enumerate(listed):
        spot = where.key("assessments").item(index)
        yield Record(as_object(item, spot, "an assessment"), spot)


def _label(record: Record) -> PlatformLabel:
    data, where = record.data, record.where
    name = optional_string(data, "assessment_name", where) or optional_string(data, "name", where)
    if name is None:
        raise where.key("assessment_name").error("required field is missing (expected a string)")
    source = optional_object(data, "source", where) or {}
    kind = optional_string(source, "source_type", where.key("source"))
    if kind not in _KINDS:
        raise (
            where.key("source")
            .key("source_type")
            .error(
                f"unknown source type {describe_json(kind)}; expected one of {', '.join(_KINDS)}"
            )
        )
    user = optional_string(source, "source_id", where.key("source"))
    trace = optional_string(data, "trace_id", where)
    value, value_where, left_out = _value(data, where)
    span = optional_string(data, "span_id", where)
    if span is not None:
        left_out = left_out or "an assessment of a span: one step of a trace, not the whole trace"
    if trace is None:
        left_out = left_out or "an assessment of no trace (trace_id is missing)"
    return PlatformLabel(
        where=value_where,
        name=name,
        value=value,
        targets=(("trace", trace),) if trace is not None else (),
        labeller=f"mlflow:{user}" if user else None,
        at=_time(data, where),
        note=optional_string(data, "rationale", where),
        human=kind == "HUMAN",
        left_out=left_out,
    )


def _value(data: dict[str, Any], where: Location) -> tuple[str, Location, str | None]:
    if data.get("valid") is False:
        return "", where.key("valid"), "overridden by a later assessment (valid: false)"
    feedback = optional_object(data, "feedback", where)
    if feedback is None:
        if data.get("expectation") is not None:
            return "", where.key("expectation"), "an expectation, not a judgement of the run"
        raise where.key("feedback").error("required field is missing (expected an object)")
    if feedback.get("error") is not None:
        return "", where.key("feedback").key("error"), "a feedback that records an error"
    spot = where.key("feedback").key("value")
    return value_text(feedback.get("value"), spot), spot, None


def _time(data: dict[str, Any], where: Location) -> Any:
    for key in ("last_update_time", "last_update_time_ms", "create_time", "create_time_ms"):
        if data.get(key) is not None:
            return label_time(data[key], where.key(key))
    return label_time(None, where.key("create_time"))
