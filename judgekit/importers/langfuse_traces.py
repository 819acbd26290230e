"""Runs from Langfuse trace exports: each trace and its observations is one run.

Langfuse records a trace as observations (``type`` SPAN, GENERATION, EVENT, TOOL, AGENT,
...) linked by ``parentObservationId``. An export is the observations API's page
(``{"data": [...], "meta": ...}``), observations one per line, or traces with their
``observations`` (the trace API's full detail), in camelCase as the API returns them. The
observations API v2 returns ``input`` and ``output`` as the raw strings the SDK sent (JSON
text for anything not a string): they are read as the values they hold. A root is an
observation without a parent, or one the API marks ``isRootObservation`` (an app's root whose
parent, a web framework's span say, never reached Langfuse).
A TOOL observation is a tool call (``input`` its arguments, ``output`` its result, level
ERROR and ``statusMessage`` its error); so is a SPAN named like a tool a generation asked
for (SDKs that trace tools as plain spans). A trace with neither has the calls its
generations asked for (:mod:`judgekit.importers.langfuse_requests`). Each GENERATION is a
turn; their ``usageDetails`` (or legacy ``usage``) and costs are summed, Langfuse's ``input`` and
``output`` with their details (``input_cached_tokens``, ``output_reasoning_tokens``, which
Langfuse counts apart) added back. The run id is the trace id; grouped by session, the
traces of one ``sessionId`` are one run, each turn's messages kept
(:mod:`judgekit.importers.sessions`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judgekit._util.jsonl import validation_error_to_data_error
from judgekit.formats.run import Run, ToolCall
from judgekit.importers.interface import Importer, ImportOptions
from judgekit.importers.langfuse_requests import requested_calls, requested_tools
from judgekit.importers.langfuse_usage import usage_and_cost
from judgekit.importers.locations import describe_json, optional_string, required_string
from judgekit.importers.run_draft import error_message, file_stem, new_tool_call, parse_result
from judgekit.importers.sessions import session_runs
from judgekit.importers.span_graph import (
    DroppedDuplicates,
    different_copy,
    keep_first,
    refuse_parent_cycles,
)
from judgekit.importers.trace_records import (
    Record,
    iter_records,
    optional_number,
    value_text,
)

__all__ = ["IMPORTER", "import_langfuse", "looks_like_langfuse"]

OBSERVATION_TYPES = frozenset(
    {"SPAN", "GENERATION", "EVENT", "TOOL", "AGENT", "CHAIN", "RETRIEVER", "EVALUATOR",
     "EMBEDDING", "GUARDRAIL"}
)  # fmt: skip
_LEVELS = ("DEBUG", "DEFAULT", "WARNING", "ERROR")
_WHAT = "a Langfuse observation or trace object"


@dataclass
class _Trace:
    """The observations of one trace, and the trace record when the file has it."""

    observations: list[Record] = field(default_factory=list)
    record: Record | None = None


def _is_observation(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and value["type"] in OBSERVATION_TYPES
        and "traceId" in value
        and "startTime" in value
    )


def looks_like_langfuse(head: object) -> bool:
    """True for Langfuse observations (one, a list, or an API page) or a trace with its
    ``observations``."""
    record = head[0] if isinstance(head, list) and head else head
    if not isinstance(record, dict):
        return False
    page = record.get("data")
    if isinstance(page, list):
        return bool(page) and _is_observation(page[0])
    observations = record.get("observations")
    if isinstance(observations, list):
        return "id" in record and all(_is_observation(o) for o in observations[:1])
    return _is_observation(record)


def import_langfuse(path: str | Path, options: ImportOptions | None = None) -> Iterator[Run]:
    """Stream the runs of a Langfuse export (JSON or JSONL, plain or ``.gz``)::

        for run in import_langfuse("langfuse-observations.json"):
            print(run.run_id, [call.name for call in run.tool_calls])

    A malformed export raises :class:`judgekit.errors.DataError` naming the file, the line
    and the field.
    """
    source = Path(path)
    options = options if options is not None else ImportOptions()
    traces: dict[str, _Trace] = {}
    for record in iter_records(source, ("data",), _WHAT):
        if "observations" in record.data:
            _add_trace(record, traces, options.duplicates)
        else:
            trace_id = _check_observation(record)
            traces.setdefault(trace_id, _Trace()).observations.append(_decoded(record))
    default_task = options.task_id or file_stem(source)
    for trace in traces.values():
        trace.observations = _checked_graph(trace.observations, options.duplicates)
    if options.by_session:  # the traces of one sessionId as one run, in the order they started
        started = sorted(traces.items(), key=lambda item: _trace_start(item[1]))
        built = [_run(trace_id, trace, default_task) for trace_id, trace in started]
        keyed = ((_session(run.metadata.get("session_id")), run) for run in built)
        return options.run_ids.apply(session_runs(keyed, "session_id"))
    runs = (_run(trace_id, trace, default_task) for trace_id, trace in traces.items())
    return options.run_ids.apply(runs)


def _trace_start(trace: _Trace) -> datetime:
    starts = [_start_time(record) for record in trace.observations]
    stamp = _time(trace.record.data.get("timestamp")) if trace.record is not None else None
    return min(starts, default=stamp or datetime.min.replace(tzinfo=UTC))


def _session(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _checked_graph(observations: list[Record], duplicates: DroppedDuplicates) -> list[Record]:
    """The trace's observations, each once (an identical copy dropped, a differing one
    refused), their parent links free of cycles."""
    unique = list(
        keep_first(
            observations,
            key=lambda r: str(r.data["id"]),
            content=lambda r: r.data,
            where=lambda r: r.where,
            what="observation",
            dropped=duplicates,
            id_field="id",
        )
    )
    by_id = {str(r.data["id"]): r for r in unique}
    parents = {key: r.data.get("parentObservationId") for key, r in by_id.items()}
    refuse_parent_cycles(
        parents, lambda key: by_id[key].where.key("parentObservationId"), "observation"
    )
    return unique


def _add_trace(record: Record, traces: dict[str, _Trace], duplicates: DroppedDuplicates) -> None:
    trace_id = required_string(record.data, "id", record.where)
    trace = traces.setdefault(trace_id, _Trace())
    if trace.record is not None:  # the trace exported again
        if trace.record.data != record.data:
            raise different_copy("trace", trace_id, trace.record.where, record.where, "id")
        duplicates.add("trace")
        return
    trace.record = record
    where = record.where.key("observations")
    observations = record.data["observations"]
    if not isinstance(observations, list):
        raise where.error(f"expected a list of observations, got {describe_json(observations)}")
    for number, raw in enumerate(observations):
        if not isinstance(raw, dict):
            raise where.item(number).error(
                f"expected an observation object, got {describe_json(raw)}"
            )
        observation = Record(raw, where.item(number))
        _check_observation(observation)
        trace.observations.append(_decoded(observation))


def _check_observation(record: Record) -> str:
    """The observation's trace id, once its fields are checked."""
    data, where = record.data, record.where
    required_string(data, "id", where)
    kind = required_string(data, "type", where)
    if kind not in OBSERVATION_TYPES:
        valid = ", ".join(sorted(OBSERVATION_TYPES))
        raise where.key("type").error(f"unknown observation type {kind!r}; valid: {valid}")
    level = optional_string(data, "level", where)
    if level is not None and level not in _LEVELS:
        raise where.key("level").error(f"unknown level {level!r}; valid: {', '.join(_LEVELS)}")
    optional_string(data, "parentObservationId", where)
    optional_string(data, "statusMessage", where)
    optional_string(data, "name", where)
    _start_time(record)
    return required_string(data, "traceId", where)


def _start_time(record: Record) -> datetime:
    # Ordered as times, not as text: the SDK's .json() writes a whole second as 09:00:00Z,
    # which sorts after 09:00:00.400000Z as text.
    text = required_string(record.data, "startTime", record.where)
    moment = _time(text)
    if moment is None:
        raise record.where.key("startTime").error(f"expected an ISO 8601 time, got {text!r}")
    return moment


def _time(value: Any) -> datetime | None:
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


def _decoded(record: Record) -> Record:
    """The observation with its input and output as values: the observations API v2 returns
    them as the raw strings the SDK sent, a JSON text for anything not a string."""
    data = dict(record.data)
    for key in ("input", "output"):
        if isinstance(data.get(key), str):
            data[key] = parse_result(data[key])
    return Record(data, record.where)


def _is_root(record: Record) -> bool:
    # An app's root span keeps its parent when that parent (a web framework's span, say) was
    # never sent to Langfuse; the API marks it isRootObservation.
    data = record.data
    return data.get("parentObservationId") is None or data.get("isRootObservation") is True


def _in_order(observations: list[Record]) -> list[Record]:
    """The observations by start; on a tie (Langfuse's API gives times to the millisecond,
    newest first) a parent before its children, then the one that ended first: of two
    steps one after the other, the first ends by the time the second starts."""
    parents: dict[str, str | None] = {
        str(r.data["id"]): r.data.get("parentObservationId") for r in observations
    }
    depths: dict[str, int] = {}

    def depth(key: str) -> int:
        chain: list[str] = []  # walked up without recursion: a trace may be thousands deep
        current: str | None = key
        while current is not None and current in parents and current not in depths:
            chain.append(current)
            current = parents[current]
        found = depths[current] if current is not None and current in depths else -1
        for step in reversed(chain):
            found += 1
            depths[step] = found
        return depths[key]

    def order(record: Record) -> tuple[datetime, int, datetime]:
        start = _start_time(record)
        end = _time(record.data.get("endTime"))
        return start, depth(str(record.data["id"])), end if end is not None else start

    return sorted(observations, key=order)


def _run(trace_id: str, trace: _Trace, default_task: str) -> Run:
    ordered = _in_order(trace.observations)
    roots = [r for r in ordered if _is_root(r)]
    generations = [r for r in ordered if r.data["type"] == "GENERATION"]
    tool_names = requested_tools(generations)
    head = trace.record or (roots[0] if roots else None)
    where = head.where if head is not None else ordered[0].where
    fields: dict[str, Any] = {
        "run_id": trace_id,
        "task_id": default_task,
        "input": value_text(_call_input(head.data.get("input"))) if head else None,
        "final_answer": _final_answer(trace.record, roots, generations),
        "tool_calls": [_tool_call(r) for r in ordered if _is_tool(r, tool_names)]
        or requested_calls(generations),
        "turns": len(generations),
        "duration_s": _duration(trace.record, ordered),
        "metadata": {"trace_id": trace_id, **_metadata(trace.record, next(iter(roots), None))},
        **usage_and_cost(generations),
    }
    failed = next((r for r in roots if r.data.get("level") == "ERROR"), None)
    if failed is not None:
        fields["stop_reason"] = "error"
        fields["metadata"]["error"] = error_message(failed.data.get("statusMessage"))
    try:
        return Run.model_validate({k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        raise where.error(
            validation_error_to_data_error(exc, path=None, line=None).message
        ) from None


def _is_tool(record: Record, tool_names: set[str]) -> bool:
    kind = record.data["type"]
    return kind == "TOOL" or (kind == "SPAN" and record.data.get("name") in tool_names)


def _tool_call(record: Record) -> ToolCall:
    data, where = record.data, record.where
    call = new_tool_call(
        required_string(data, "name", where), _arguments(data.get("input")), data["id"]
    )
    output = data.get("output")
    call.result = parse_result(output) if isinstance(output, str) else output
    if data.get("level") == "ERROR":
        call.error = error_message(
            optional_string(data, "statusMessage", where) or value_text(output)
        )
    return call


def _arguments(value: Any) -> Any:
    # Langfuse's @observe records a function's call as {"args": [...], "kwargs": {...}}.
    if isinstance(value, dict) and value.keys() == {"args", "kwargs"}:
        args, kwargs = value["args"], value["kwargs"]
        if isinstance(kwargs, dict) and args in ([], None):
            return kwargs
    return value


def _call_input(value: Any) -> Any:
    # A function traced by @observe and called with one argument was asked that argument.
    if isinstance(value, dict) and value.keys() == {"args", "kwargs"}:
        args, kwargs = value["args"], value["kwargs"]
        if isinstance(args, list) and len(args) == 1 and kwargs in ({}, None):
            return args[0]
    return _arguments(value)


def _final_answer(
    trace: Record | None, roots: list[Record], generations: list[Record]
) -> str | None:
    if trace is not None and trace.data.get("output") is not None:
        return value_text(trace.data["output"])
    for record in (*reversed(roots), *reversed(generations)):
        if record.data.get("output") is not None:
            return value_text(record.data["output"])
    return None


def _duration(trace: Record | None, ordered: list[Record]) -> float | None:
    if trace is not None:
        latency = optional_number(trace.data, "latency", trace.where)
        if latency is not None:
            return latency
    ends = [end for r in ordered if (end := _time(r.data.get("endTime"))) is not None]
    seconds = (max(ends) - _start_time(ordered[0])).total_seconds() if ends else None
    return seconds if seconds is not None and seconds >= 0 else None


def _metadata(trace: Record | None, root: Record | None) -> dict[str, Any]:
    # The trace's own fields, else those the observations API v2 copies onto each observation.
    if trace is not None:
        data, name = trace.data, trace.data.get("name")
    elif root is not None:
        data, name = root.data, root.data.get("traceName")
    else:
        return {}
    found = {
        "name": name,
        "tags": data.get("tags") or None,
        "session_id": data.get("sessionId"),
        "user_id": data.get("userId"),
    }
    return {key: value for key, value in found.items() if value is not None}


IMPORTER = Importer(
    name="langfuse",
    what="a Langfuse trace export (observations)",
    looks_like=looks_like_langfuse,
    read=import_langfuse,
    details="Langfuse observations as the API returns them (a page with `data`, one per "
    "line, or traces with their `observations`; the SDK's v2 pages with their JSON-text "
    "`input` and `output`): each trace is one run, its id the trace "
    "id; TOOL observations (and spans named like a tool a generation asked for) are the "
    "tool calls, level ERROR their errors (else the calls the generations asked for); "
    "generations are the turns, their usage and "
    "costs summed. With --group-by session, the traces of one sessionId are one run, its id "
    "the session's, each turn's messages kept in order.",
    groups=("session",),
)
