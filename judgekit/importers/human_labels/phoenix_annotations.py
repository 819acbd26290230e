"""Human labels from Arize Phoenix: its span, trace and session annotations, as the
``arize-phoenix-client`` gives them (``client.spans.get_span_annotations`` and the REST
API's ``SpanAnnotation``, ``TraceAnnotation`` and ``SessionAnnotation`` objects, dumped as
JSON), one per line, in a JSON list or in a page (``data``).

An annotation is a person's when its ``annotator_kind`` is ``HUMAN`` (``LLM`` and ``CODE``
are judges and code). Its value is ``result.label``, else ``result.score``; its note
``result.explanation``; its labeller ``user_id``, else the annotation's ``identifier``.
An annotation of a trace's root span labels the run of that trace (the run importer keeps
the root's id as ``root_span_id``); of a trace, the trace's run; of a session, the run of a
session grouped with ``--group-by session``.
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
from judgekit.importers.locations import Location, optional_string, required_string
from judgekit.importers.spans import hex_id
from judgekit.importers.trace_records import Record, iter_records, optional_object

__all__ = ["read_phoenix_annotations"]

_KINDS = ("HUMAN", "LLM", "CODE")


def read_phoenix_annotations(paths: Sequence[Path]) -> list[PlatformLabel]:
    """The annotations of ``paths`` as labels."""
    return [
        _label(record)
        for path in paths
        for record in iter_records(path, ("data",), "a Phoenix annotation")
    ]


def _label(record: Record) -> PlatformLabel:
    data, where = record.data, record.where
    kind = required_string(data, "annotator_kind", where)
    if kind not in _KINDS:
        raise where.key("annotator_kind").error(
            f"unknown annotator kind {kind!r}; expected one of {', '.join(_KINDS)}"
        )
    result = optional_object(data, "result", where) or {}
    value, value_where = _value(result, where.key("result"))
    user = optional_string(data, "user_id", where) or optional_string(data, "identifier", where)
    return PlatformLabel(
        where=value_where,
        name=required_string(data, "name", where),
        value=value or "",
        targets=_targets(data, where),
        labeller=f"phoenix:{user}" if user else None,
        at=label_time(data.get("updated_at") or data.get("created_at"), where.key("updated_at")),
        note=optional_string(result, "explanation", where.key("result")),
        human=kind == "HUMAN",
        left_out=None if value is not None else "an annotation with no label or score",
    )


def _targets(data: dict[str, Any], where: Location) -> tuple[Target, ...]:
    span = optional_string(data, "span_id", where)
    if span is not None:
        return (("span", hex_id(span)),)
    trace = optional_string(data, "trace_id", where)
    if trace is not None:
        return (("trace", hex_id(trace)),)
    session = optional_string(data, "session_id", where)
    if session is not None:
        return (("session", session),)
    raise where.error("required field is missing (expected span_id, trace_id or session_id)")


def _value(result: dict[str, Any], where: Location) -> tuple[str | None, Location]:
    for key in ("label", "score"):
        if result.get(key) is not None:
            return value_text(result[key], where.key(key)), where.key(key)
    return None, where.key("label")
