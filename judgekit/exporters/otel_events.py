"""Verdicts and labels as OpenTelemetry GenAI evaluation events: OTLP/JSON log records
(``{"resourceLogs": [...]}``) named ``gen_ai.evaluation.result``, each parented to the
evaluated run's span when the run carries its trace and span ids.

The attributes follow the GenAI semantic conventions (``gen_ai.evaluation.name``,
``.score.value``, ``.score.label``, ``.explanation``; ``error.type`` when the judge's answer
could not be read); what they have no word for is under ``judgekit.*``. OTLP/JSON spells
ids as hex and 64-bit integers as strings.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import IO, Any

from judgekit.exporters.items import ExportItem, boolean_value, score_kind
from judgekit.exporters.trace_links import otel_ids

__all__ = ["EVENT_NAME", "is_linked", "write_otel"]

EVENT_NAME = "gen_ai.evaluation.result"
_SEVERITY_INFO = 9
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _attribute(key: str, value: str | float | bool) -> dict[str, Any]:
    if isinstance(value, bool):
        typed: dict[str, Any] = {"boolValue": value}
    elif isinstance(value, str):
        typed = {"stringValue": value}
    else:
        typed = {"doubleValue": float(value)}
    return {"key": key, "value": typed}


def _score_attributes(item: ExportItem) -> list[dict[str, Any]]:
    if item.score is None:
        # Unscored or abstained: neither pass nor fail, so no score at all.
        return [_attribute("error.type", "unscored")] if item.status == "unscored" else []
    kind = score_kind(item.score)
    if kind == "numeric":
        return [_attribute("gen_ai.evaluation.score.value", float(item.score))]
    label = [_attribute("gen_ai.evaluation.score.label", str(item.score))]
    if kind == "boolean":
        value = boolean_value(str(item.score))
        return [_attribute("gen_ai.evaluation.score.value", value), *label]
    return label


def _attributes(item: ExportItem) -> list[dict[str, Any]]:
    attributes = [_attribute("gen_ai.evaluation.name", item.rubric_id)]
    attributes += _score_attributes(item)
    if item.reason is not None:
        attributes.append(_attribute("gen_ai.evaluation.explanation", item.reason))
    attributes.append(_attribute("judgekit.kind", item.kind))
    attributes.append(_attribute("judgekit.run_id", item.run_id))
    attributes.append(_attribute("judgekit.status", item.status))
    if item.rubric_version is not None:
        attributes.append(_attribute("judgekit.rubric_version", item.rubric_version))
    source_key = "judgekit.model" if item.kind == "verdict" else "judgekit.labeler"
    attributes.append(_attribute(source_key, item.source))
    if item.confidence is not None:
        attributes.append(_attribute("judgekit.confidence", item.confidence))
    return attributes


def _log_record(item: ExportItem) -> dict[str, Any]:
    at = item.at if item.at.tzinfo is not None else item.at.replace(tzinfo=UTC)
    nanos = (at - _EPOCH) // timedelta(microseconds=1) * 1000  # exact: `at` holds microseconds
    record: dict[str, Any] = {
        "timeUnixNano": str(nanos),
        "severityNumber": _SEVERITY_INFO,
        "severityText": "INFO",
        "eventName": EVENT_NAME,
        "attributes": _attributes(item),
    }
    trace_id, span_id = otel_ids(item.trace)
    if trace_id is not None:
        record["traceId"] = trace_id
    if span_id is not None:
        record["spanId"] = span_id
    return record


def is_linked(item: ExportItem) -> bool:
    """Whether the event carries the run's trace id."""
    return otel_ids(item.trace)[0] is not None


def otel_document(items: list[ExportItem]) -> dict[str, Any]:
    """The OTLP/JSON logs document of ``items``: one resource (judgekit), one scope."""
    resource = {"attributes": [_attribute("service.name", "judgekit")]}
    scope = {"name": "judgekit"}
    records = [_log_record(item) for item in items]
    return {
        "resourceLogs": [
            {"resource": resource, "scopeLogs": [{"scope": scope, "logRecords": records}]}
        ]
    }


def write_otel(items: list[ExportItem], out: IO[str]) -> None:
    """Write ``items`` as one OTLP/JSON document."""
    json.dump(otel_document(items), out, ensure_ascii=False, indent=1)
    out.write("\n")
