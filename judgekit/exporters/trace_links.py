"""Which trace (and span) of another tool a run came from, read from the run's metadata, and
the ids in the spelling each tool takes.

An importer records the source's ids in ``metadata.trace_id`` and ``metadata.span_id``
(OpenTelemetry: 32 and 16 hex digits; LangSmith: the root run's and the run's UUIDs, and
the project's in ``metadata.langsmith_project_id``;
Langfuse: the trace's and the observation's ids; MLflow: ``tr-`` and the OpenTelemetry trace
id its tracing made, which OpenTelemetry events take without the prefix). An id a tool cannot take (a Langfuse id
for an OpenTelemetry event) is left out, and the item is counted as not linked.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit.formats.run import iter_unique_runs

__all__ = ["TraceLink", "links_of_runs", "otel_ids", "trace_link", "uuid_or_none"]

TRACE_ID_KEY = "trace_id"
SPAN_ID_KEY = "span_id"
PROJECT_ID_KEY = "langsmith_project_id"
MLFLOW_TRACE_PREFIX = "tr-"
_HEX = re.compile(r"[0-9a-f]+")


@dataclass(frozen=True)
class TraceLink:
    """The source's trace id and, when the run was one span of it, that span's id; for a
    LangSmith trace, the id of the project it was traced to."""

    trace_id: str
    span_id: str | None = None
    project_id: str | None = None


def trace_link(metadata: Mapping[str, Any]) -> TraceLink | None:
    """The link a run's metadata carries (None without a non-empty string ``trace_id``).

    >>> trace_link({"trace_id": "5b8efff798038103d269b633813fc60c", "span_id": "eee19b7ec3c1b174"})
    TraceLink(trace_id='5b8efff798038103d269b633813fc60c', span_id='eee19b7ec3c1b174', project_id=None)
    >>> trace_link({"trace_id": 7}) is None
    True
    """
    trace_id = metadata.get(TRACE_ID_KEY)
    if not isinstance(trace_id, str) or not trace_id.strip():
        return None
    return TraceLink(
        trace_id.strip(), _text(metadata.get(SPAN_ID_KEY)), _text(metadata.get(PROJECT_ID_KEY))
    )


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def links_of_runs(runs_files: Sequence[Path]) -> dict[str, TraceLink | None]:
    """Each run's link (None: it carries none) by run id, from ``runs.jsonl`` files; a run
    in a later file replaces one of the same id in an earlier one."""
    links: dict[str, TraceLink | None] = {}
    for path in runs_files:
        for _, run in iter_unique_runs(path):
            links[run.run_id] = trace_link(run.metadata)
    return links


def _hex_id(value: str | None, digits: int) -> str | None:
    # OpenTelemetry ids are lowercase hex of a fixed length, never all zeros; a UUID's
    # dashes are dropped (the same 128 bits), and so is MLflow's ``tr-`` (MLflow 3 names a
    # trace "tr-" + the OpenTelemetry trace id of its spans).
    if value is None:
        return None
    text = value.lower().removeprefix(MLFLOW_TRACE_PREFIX).replace("-", "")
    if len(text) != digits or not _HEX.fullmatch(text) or not text.strip("0"):
        return None
    return text


def otel_ids(link: TraceLink | None) -> tuple[str | None, str | None]:
    """``(traceId, spanId)`` as OTLP takes them, or None where the id does not fit.

    >>> otel_ids(TraceLink("5B8EFFF7-9803-8103-D269-B633813FC60C", "eee19b7ec3c1b174"))
    ('5b8efff798038103d269b633813fc60c', 'eee19b7ec3c1b174')
    >>> otel_ids(TraceLink("tr-402162db3533c7680553a1e7d78dba45"))
    ('402162db3533c7680553a1e7d78dba45', None)
    >>> otel_ids(TraceLink("abc", "eee19b7ec3c1b174"))
    (None, None)
    """
    if link is None:
        return None, None
    trace_id = _hex_id(link.trace_id, 32)
    if trace_id is None:
        return None, None  # a span id means nothing without its trace
    return trace_id, _hex_id(link.span_id, 16)


def uuid_or_none(value: str | None) -> str | None:
    """The id as a UUID string (LangSmith's ids are UUIDs), or None when it is not one.

    >>> uuid_or_none("5b8efff798038103d269b633813fc60c")
    '5b8efff7-9803-8103-d269-b633813fc60c'
    >>> uuid_or_none("eee19b7ec3c1b174") is None
    True
    """
    if value is None:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None
