"""Verdicts and labels as OpenTelemetry GenAI evaluation events: OTLP/JSON log records
(``{"resourceLogs": [...]}``) named ``gen_ai.evaluation.result``, each parented to the
evaluated run's span when the run carries its trace and span ids.

The attributes follow the GenAI semantic conventions (``gen_ai.evaluation.name``,
``.score.value``, ``.score.label``, ``.explanation``; ``error.type`` when the judge's answer
could not be read; the judge's ``gen_ai.provider.name``, ``gen_ai.request.model`` and
``server.address``/``server.port``); what they have no word for is under ``judgekit.*``:
the rubric version, the judge's whole model name and endpoint, judgekit's version, and the
verdict's standing (``judgekit.promotion.*``: the promotion it stands on, or why none).
OTLP/JSON spells ids as hex and 64-bit integers as strings.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta
from typing import IO, Any, Final

from judgekit._util.endpoint_url import server_of
from judgekit._util.version import __version__
from judgekit.exporters.items import ExportItem, boolean_value, score_kind
from judgekit.exporters.judge_standing import Standing
from judgekit.exporters.trace_links import otel_ids

__all__ = ["EVENT_NAME", "is_linked", "write_otel"]

EVENT_NAME = "gen_ai.evaluation.result"
_SEVERITY_INFO = 9
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_PROMOTION: Final = "judgekit.promotion"


def _attribute(key: str, value: str | float | bool) -> dict[str, Any]:
    if isinstance(value, bool):
        typed: dict[str, Any] = {"boolValue": value}
    elif isinstance(value, str):
        typed = {"stringValue": value}
    elif isinstance(value, int):
        typed = {"intValue": str(value)}  # a 64-bit integer: a string in OTLP/JSON
    else:
        typed = {"doubleValue": value}
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
    if item.kind == "verdict":
        attributes += _judge_attributes(item)
    else:
        attributes.append(_attribute("judgekit.labeler", item.source))
    if item.confidence is not None:
        attributes.append(_attribute("judgekit.confidence", item.confidence))
    if item.standing is not None:
        attributes += _standing_attributes(item.standing)
    return attributes


def _judge_attributes(item: ExportItem) -> list[dict[str, Any]]:
    """Who judged: the judge's provider and model and the server it was asked at, under
    the GenAI conventions' names (they describe the judge's request, not the agent's),
    and the rubric version, the whole model name, the endpoint and judgekit's version."""
    provider, slash, model = item.source.partition("/")
    attributes = [_attribute("gen_ai.provider.name", provider)] if slash else []
    attributes.append(_attribute("gen_ai.request.model", model if slash else item.source))
    server = None if item.endpoint is None else server_of(item.endpoint)
    if server is not None:
        attributes.append(_attribute("server.address", server[0]))
        if server[1] is not None:
            attributes.append(_attribute("server.port", server[1]))
    if item.rubric_version is not None:
        attributes.append(_attribute("judgekit.rubric.version", item.rubric_version))
    attributes.append(_attribute("judgekit.judge.model", item.source))
    if item.endpoint is not None:
        attributes.append(_attribute("judgekit.judge.endpoint", item.endpoint))
    attributes.append(_attribute("judgekit.version", __version__))
    return attributes


def _standing_attributes(standing: Standing) -> list[dict[str, Any]]:
    """``judgekit.promotion.promoted``, then the promotion's figures or the reason."""
    promoted = not isinstance(standing, str)
    attributes = [_attribute(f"{_PROMOTION}.promoted", promoted)]
    if isinstance(standing, str):
        return [*attributes, _attribute(f"{_PROMOTION}.reason", standing)]
    for name, value in dataclasses.asdict(standing).items():
        attributes.append(_attribute(f"{_PROMOTION}.{name}", value))
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
