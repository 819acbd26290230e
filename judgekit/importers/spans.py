"""Trace spans read from the two files OpenTelemetry writes, for the span-based importers.

- OTLP JSON: ``{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}``, one document or
  one per line (the collector's file exporter), attributes as ``[{key, value: AnyValue}]``;
- the SDK's ``ConsoleSpanExporter`` output: ``span.to_json()`` objects one after another
  (``context.trace_id``, ``parent_id``, ``attributes`` as a plain object), or a JSON list.

Both become :class:`Span` values; :func:`traces` groups them by trace, in start order, each
span once and their parent links checked (:mod:`judgekit.importers.span_graph`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from judgekit.importers.json_values import iter_json_values
from judgekit.importers.locations import (
    Location,
    as_object,
    describe_json,
    optional_string,
    required_string,
)
from judgekit.importers.span_graph import DroppedDuplicates, keep_first, refuse_parent_cycles

__all__ = ["Span", "looks_like_spans", "read_spans", "traces"]

_HEX = frozenset("0123456789abcdef")
_OTLP_ERROR = ("STATUS_CODE_ERROR", 2)
_SPAN = "a span object"
# protobuf's JSON mapping writes a double that is not finite as "NaN", "Infinity", "-Infinity".
_SCALAR_KINDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "stringValue": ("a string", lambda v: isinstance(v, str)),
    "boolValue": ("true or false", lambda v: isinstance(v, bool)),
    "doubleValue": (
        "a number",
        lambda v: (
            (isinstance(v, int | float) and not isinstance(v, bool))
            or v in ("NaN", "Infinity", "-Infinity")
        ),
    ),
    "bytesValue": ("a base64 string", lambda v: isinstance(v, str)),
}


@dataclass(frozen=True)
class Span:
    """One span: its ids, name, times (ns since the epoch), attributes and error, if any."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    error: str | None
    where: Location


def read_spans(path: Path) -> Iterator[Span]:
    """Every span of an OTLP JSON or console-exporter file, in file order."""
    for where, value in iter_json_values(path):
        values = enumerate(value) if isinstance(value, list) else [(None, value)]
        for number, item in values:
            item_where = where if number is None else where.item(number)
            record = as_object(item, item_where, "an OTLP `resourceSpans` object or a span")
            if "resourceSpans" in record:
                yield from _otlp_spans(record, item_where)
            else:
                yield _console_span(record, item_where)


def traces(spans: Iterator[Span], duplicates: DroppedDuplicates) -> list[list[Span]]:
    """The spans grouped by trace (traces in order of first appearance), each by start time:
    an identical copy of a span dropped (counted in ``duplicates``), a differing one or a
    cycle of parents a DataError."""
    grouped: dict[str, list[Span]] = {}
    unique = keep_first(
        spans,
        key=lambda span: (span.trace_id, span.span_id),
        content=_content,
        where=lambda span: span.where,
        what="span",
        dropped=duplicates,
    )
    for span in unique:
        grouped.setdefault(span.trace_id, []).append(span)
    for group in grouped.values():
        _refuse_cycles(group)
    return [sorted(group, key=lambda span: span.start_ns) for group in grouped.values()]


def _refuse_cycles(trace: list[Span]) -> None:
    by_id = {span.span_id: span for span in trace}
    parents = {span.span_id: span.parent_id for span in trace}
    refuse_parent_cycles(parents, lambda span_id: by_id[span_id].where, "span")


def _content(span: Span) -> tuple[Any, ...]:
    """What a span says, wherever the file holds it."""
    return (
        span.parent_id,
        span.name,
        span.start_ns,
        span.end_ns,
        span.attributes,
        span.error,
    )


def looks_like_spans(head: object, attribute_prefix: str) -> bool:
    """True when ``head`` holds spans (OTLP or console) with an attribute key starting with
    ``attribute_prefix``."""
    for attributes in _head_attributes(head):
        if any(isinstance(key, str) and key.startswith(attribute_prefix) for key in attributes):
            return True
    return False


def _head_attributes(head: object) -> Iterator[list[Any] | dict[str, Any]]:
    records = head if isinstance(head, list) else [head]
    for record in records:
        if not isinstance(record, dict):
            continue
        if isinstance(record.get("attributes"), dict) and "context" in record:
            yield record["attributes"]
        for resource in _list(record.get("resourceSpans")):
            for scope in _list(resource.get("scopeSpans") if isinstance(resource, dict) else None):
                for span in _list(scope.get("spans") if isinstance(scope, dict) else None):
                    if isinstance(span, dict):
                        keys = [
                            a.get("key")
                            for a in _list(span.get("attributes"))
                            if isinstance(a, dict)
                        ]
                        yield dict.fromkeys(key for key in keys if isinstance(key, str))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


# --- OTLP JSON -----------------------------------------------------------------------------


def _otlp_spans(record: dict[str, Any], where: Location) -> Iterator[Span]:
    for r, resource in enumerate(_required_list(record, "resourceSpans", where)):
        resource_where = where.key("resourceSpans").item(r)
        resource = as_object(resource, resource_where, "a resourceSpans object")
        for s, scope in enumerate(_optional_list(resource, "scopeSpans", resource_where)):
            scope_where = resource_where.key("scopeSpans").item(s)
            scope = as_object(scope, scope_where, "a scopeSpans object")
            for n, span in enumerate(_optional_list(scope, "spans", scope_where)):
                span_where = scope_where.key("spans").item(n)
                yield _otlp_span(as_object(span, span_where, _SPAN), span_where)


def _otlp_span(span: dict[str, Any], where: Location) -> Span:
    attributes: dict[str, Any] = {}
    for number, entry in enumerate(_optional_list(span, "attributes", where)):
        entry_where = where.key("attributes").item(number)
        pair = as_object(entry, entry_where, "an attribute object with `key` and `value`")
        key = required_string(pair, "key", entry_where)
        attributes[key] = any_value(pair.get("value"), entry_where.key("value"))
    status = span.get("status")
    status = as_object(status, where.key("status")) if status is not None else {}
    failed = status.get("code") in _OTLP_ERROR
    return Span(
        trace_id=hex_id(required_string(span, "traceId", where)),
        span_id=hex_id(required_string(span, "spanId", where)),
        parent_id=hex_id(optional_string(span, "parentSpanId", where) or "") or None,
        name=required_string(span, "name", where),
        start_ns=_nanoseconds(span.get("startTimeUnixNano"), where.key("startTimeUnixNano")),
        end_ns=_nanoseconds(span.get("endTimeUnixNano"), where.key("endTimeUnixNano")),
        attributes=attributes,
        error=(optional_string(status, "message", where.key("status")) or "error")
        if failed
        else None,
        where=where,
    )


def hex_id(value: str) -> str:
    """A trace or span id as lowercase hex, however the file wrote it: hex (OTLP JSON),
    ``0x``-prefixed hex (the console exporter) or base64 (protobuf's JSON mapping)."""
    text = value.removeprefix("0x")
    if len(text) in (16, 32) and all(c in _HEX for c in text.lower()):
        return text.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return value
    return raw.hex() if len(raw) in (8, 16) else value


def any_value(value: Any, where: Location) -> Any:
    """The Python value of an OTLP AnyValue (``{"stringValue": "a"}`` → ``"a"``)."""
    value = as_object(value, where, 'an OTLP AnyValue such as {"stringValue": "..."}')
    if not value:
        return None
    (kind, inner), *rest = value.items()
    if rest:
        raise where.error(f"expected one value, got {', '.join(sorted(value))}")
    if kind in _SCALAR_KINDS:
        expected, fits = _SCALAR_KINDS[kind]
        if not fits(inner):
            raise where.key(kind).error(f"expected {expected}, got {describe_json(inner)}")
        return inner
    if kind == "intValue":
        return _int(inner, where.key(kind))
    if kind == "arrayValue":
        items = _optional_list(as_object(inner, where.key(kind)), "values", where.key(kind))
        return [
            any_value(item, where.key(kind).key("values").item(n)) for n, item in enumerate(items)
        ]
    if kind == "kvlistValue":
        entries = _optional_list(as_object(inner, where.key(kind)), "values", where.key(kind))
        return {
            required_string(e, "key", where): any_value(e.get("value"), where.key(kind))
            for e in (as_object(e, where.key(kind)) for e in entries)
        }
    raise where.error(
        f"unknown value kind {kind!r}; expected stringValue, intValue, doubleValue, "
        "boolValue, arrayValue, kvlistValue or bytesValue"
    )


def _int(value: Any, where: Location) -> int:
    # OTLP JSON writes 64-bit integers as strings.
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    raise where.error(f"expected a whole number, got {describe_json(value)}")


def _nanoseconds(value: Any, where: Location) -> int:
    return 0 if value is None else _int(value, where)


def _required_list(obj: dict[str, Any], key: str, where: Location) -> list[Any]:
    value = obj.get(key)
    if not isinstance(value, list):
        raise where.key(key).error(f"expected a list, got {describe_json(value)}")
    return value


def _optional_list(obj: dict[str, Any], key: str, where: Location) -> list[Any]:
    return [] if obj.get(key) is None else _required_list(obj, key, where)


# --- ConsoleSpanExporter (span.to_json()) ------------------------------------------------


def _console_span(span: dict[str, Any], where: Location) -> Span:
    context = as_object(span.get("context"), where.key("context"), "an object with `trace_id`")
    attributes = span.get("attributes") or {}
    attributes = as_object(attributes, where.key("attributes"))
    status = span.get("status") or {}
    status = as_object(status, where.key("status"))
    failed = status.get("status_code") == "ERROR"
    description = optional_string(status, "description", where.key("status"))
    return Span(
        trace_id=hex_id(required_string(context, "trace_id", where.key("context"))),
        span_id=hex_id(required_string(context, "span_id", where.key("context"))),
        parent_id=hex_id(optional_string(span, "parent_id", where) or "") or None,
        name=required_string(span, "name", where),
        start_ns=_iso_ns(span.get("start_time"), where.key("start_time")),
        end_ns=_iso_ns(span.get("end_time"), where.key("end_time")),
        attributes=dict(attributes),
        error=(description or "error") if failed else None,
        where=where,
    )


def _iso_ns(value: Any, where: Location) -> int:
    if value is None:
        return 0
    if not isinstance(value, str):
        raise where.error(
            f"expected a time such as 2025-01-31T12:00:00.000000Z, got {describe_json(value)}"
        )
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise where.error(
            f"expected a time such as 2025-01-31T12:00:00.000000Z, got {describe_json(value)}"
        ) from None
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000
