"""MLflow traces read from the files MLflow's SDK writes, as spans for the span importers.

A file holds ``Trace.to_json()`` (or ``Trace.to_dict()``) per line, one such trace, or a JSON
list of them (``mlflow.search_traces(return_type="list")`` dumped): ``{"info": {...},
"data": {"spans": [...]}}``. ``info.trace_id`` (``tr-…``; ``request_id`` in the files of
MLflow 2) names the trace, and each span is read into a :class:`Span` of that trace id.
A span is MLflow 3's OTLP-like dict (base64 ``span_id`` / ``parent_span_id``,
``start_time_unix_nano``, ``status.code``) or MLflow 2's (``context.span_id`` in hex,
``parent_id``, ``start_time``, ``status_code``); its attribute values are JSON texts
(``mlflow.spanType`` is ``"\\"TOOL\\""``), held decoded. The trace's session and user
(``mlflow.trace.session`` / ``mlflow.trace.user`` in its metadata) go with it: the session
as the root span's ``session.id``, as MLflow itself sets it when it exports OTLP.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit._util.jsonl import parse_json
from judgekit.importers.json_values import iter_json_values
from judgekit.importers.locations import (
    Location,
    as_object,
    describe_json,
    optional_string,
    required_string,
)
from judgekit.importers.spans import Span, hex_id

__all__ = ["SESSION", "SESSION_ATTRIBUTE", "USER", "TraceFacts", "read_mlflow_traces"]

SESSION = "mlflow.trace.session"
USER = "mlflow.trace.user"
SESSION_ATTRIBUTE = "session.id"
_WHAT = "an MLflow trace object with `info` and `data` (Trace.to_dict())"
_ERROR_CODES = frozenset({"STATUS_CODE_ERROR", "ERROR"})


@dataclass(frozen=True)
class TraceFacts:
    """What a trace's ``info`` says beyond its spans."""

    trace_id: str
    session: str | None
    user: str | None
    name: str | None


def read_mlflow_traces(path: Path) -> tuple[list[Span], dict[str, TraceFacts]]:
    """Every span of every trace of the file, in file order, and each trace's facts."""
    spans: list[Span] = []
    facts: dict[str, TraceFacts] = {}
    for where, value in iter_json_values(path):
        items = enumerate(value) if isinstance(value, list) else [(None, value)]
        for number, item in items:
            item_where = where if number is None else where.item(number)
            trace_facts, trace_spans = _trace(as_object(item, item_where, _WHAT), item_where)
            facts.setdefault(trace_facts.trace_id, trace_facts)
            spans.extend(trace_spans)
    return spans, facts


def _trace(trace: dict[str, Any], where: Location) -> tuple[TraceFacts, list[Span]]:
    info = _required_object(trace, "info", where)
    info_where = where.key("info")
    key = "trace_id" if "trace_id" in info or "request_id" not in info else "request_id"
    trace_id = required_string(info, key, info_where)
    metadata_key = "trace_metadata" if "request_metadata" not in info else "request_metadata"
    metadata = info.get(metadata_key) or {}
    metadata_where = info_where.key(metadata_key)
    metadata = as_object(metadata, metadata_where)
    tags = as_object(info.get("tags") or {}, info_where.key("tags"))
    facts = TraceFacts(
        trace_id=trace_id,
        session=optional_string(metadata, SESSION, metadata_where),
        user=optional_string(metadata, USER, metadata_where),
        name=optional_string(tags, "mlflow.traceName", info_where.key("tags")),
    )
    data = _required_object(trace, "data", where)
    listed = data.get("spans")
    spans_where = where.key("data").key("spans")
    if not isinstance(listed, list):
        raise spans_where.error(f"expected a list of spans, got {describe_json(listed)}")
    spans = [
        _span(as_object(raw, spans_where.item(n), "a span object"), trace_id, spans_where.item(n))
        for n, raw in enumerate(listed)
    ]
    if facts.session is not None:
        ids = {span.span_id for span in spans}
        for span in spans:
            if span.parent_id not in ids:
                span.attributes.setdefault(SESSION_ATTRIBUTE, facts.session)
    return facts, spans


def _required_object(obj: dict[str, Any], key: str, where: Location) -> dict[str, Any]:
    if key not in obj:
        raise where.key(key).error(f"required field is missing (expected {_WHAT})")
    return as_object(obj[key], where.key(key))


def _span(span: dict[str, Any], trace_id: str, where: Location) -> Span:
    """One span, in MLflow 3's shape or (with a ``context``) MLflow 2's."""
    if "context" in span:
        context = as_object(span["context"], where.key("context"))
        span_id = required_string(context, "span_id", where.key("context"))
        parent = optional_string(span, "parent_id", where)
        times = ("start_time", "end_time")
        code = optional_string(span, "status_code", where)
        message = optional_string(span, "status_message", where)
    else:
        span_id = required_string(span, "span_id", where)
        parent = optional_string(span, "parent_span_id", where)
        times = ("start_time_unix_nano", "end_time_unix_nano")
        status = as_object(span.get("status") or {}, where.key("status"))
        code = optional_string(status, "code", where.key("status"))
        message = optional_string(status, "message", where.key("status"))
    attributes = as_object(span.get("attributes") or {}, where.key("attributes"))
    error = None
    if code in _ERROR_CODES:
        error = message or _exception_text(span, where) or "error"
    return Span(
        trace_id=trace_id,
        span_id=hex_id(span_id),
        parent_id=hex_id(parent) if parent else None,
        name=required_string(span, "name", where),
        start_ns=_nanoseconds(span.get(times[0]), where.key(times[0])),
        end_ns=_nanoseconds(span.get(times[1]), where.key(times[1])),
        attributes={key: _decoded(value) for key, value in attributes.items()},
        error=error,
        where=where,
    )


def _decoded(value: Any) -> Any:
    """An attribute as MLflow meant it: its JSON text parsed (a text that is not JSON as
    it is, as a producer other than MLflow's SDK may write one)."""
    if not isinstance(value, str):
        return value
    try:
        return parse_json(value)
    except (ValueError, RecursionError):  # not JSON, a number too long, nested too deep
        return value


def _exception_text(span: dict[str, Any], where: Location) -> str | None:
    """``Type: message`` of the span's ``exception`` event, None when it has none."""
    events = span.get("events") or []
    if not isinstance(events, list):
        raise where.key("events").error(f"expected a list of events, got {describe_json(events)}")
    for number, event in enumerate(events):
        event_where = where.key("events").item(number)
        event = as_object(event, event_where, "an event object")
        if event.get("name") != "exception":
            continue
        attributes = as_object(event.get("attributes") or {}, event_where.key("attributes"))
        kind, message = attributes.get("exception.type"), attributes.get("exception.message")
        shown = [str(part) for part in (kind, message) if part not in (None, "")]
        return ": ".join(shown) or None
    return None


def _nanoseconds(value: Any, where: Location) -> int:
    if value is None:
        return 0
    if isinstance(value, str) and value.isdigit():
        return int(value)  # protobuf's JSON mapping writes 64-bit integers as strings
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise where.error(
        f"expected nanoseconds since the epoch (a whole number ≥ 0), got {describe_json(value)}"
    )
