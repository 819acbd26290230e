"""Runs from LangSmith trace exports: each trace (a root run and its children) is one run.

LangSmith records a trace as runs (``run_type`` chain, llm, tool, ...) linked by
``parent_run_id`` and ``trace_id``; an export holds them as JSON or JSONL, as the client's
``list_runs`` returns them (a root may carry its descendants in ``child_runs``). The root's
``inputs`` and ``outputs`` are the run's input and final answer (of a LangGraph state, its
human message and its last AI message); each ``tool`` run, in start order, is a tool call
(``inputs`` its arguments, ``outputs`` its result — a LangChain ToolMessage's ``content``,
its ``tool_call_id`` the call's id — ``error`` its error); each ``llm`` run is a turn, whose
``prompt_tokens`` and ``completion_tokens`` are summed (else the ``usage_metadata`` the
tracer sent; the root's own totals when the trace has no llm run). The run id is the trace
id; the task is the root's ``reference_example_id`` (a dataset example) when it has one.
Grouped by session, the traces of one thread (the root's ``thread_id``, ``session_id`` or
``conversation_id`` metadata) make one run, its id the thread's, each turn's messages kept
(:mod:`judgekit.importers.sessions`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judgekit._util.jsonl import validation_error_to_data_error
from judgekit.formats.run import Run, ToolCall, Usage
from judgekit.importers.interface import Importer, ImportOptions
from judgekit.importers.langchain_messages import (
    exception_text,
    first_human_text,
    last_ai_text,
    tool_outcome,
)
from judgekit.importers.locations import Location, describe_json, optional_string, required_string
from judgekit.importers.run_draft import error_message, file_stem, new_tool_call, parse_result
from judgekit.importers.sessions import session_runs
from judgekit.importers.span_graph import keep_first, refuse_parent_cycles
from judgekit.importers.trace_records import (
    Record,
    iter_records,
    optional_count,
    optional_number,
    optional_object,
    seconds_between,
    value_text,
)

__all__ = ["IMPORTER", "import_langsmith", "looks_like_langsmith"]

_RUN_TYPES = frozenset({"chain", "llm", "tool", "retriever", "embedding", "prompt", "parser"})
_WHAT = "a LangSmith run object (with `id`, `run_type`, `inputs`)"
# The metadata keys LangSmith reads a thread's id from.
_THREAD_KEYS = ("thread_id", "session_id", "conversation_id")


def looks_like_langsmith(head: object) -> bool:
    """True for a LangSmith run (or a list of them): ``run_type`` one of LangSmith's, with
    ``inputs`` and a ``trace_id`` or ``parent_run_id`` (possibly null) beside them."""
    record = head[0] if isinstance(head, list) and head else head
    return (
        isinstance(record, dict)
        and isinstance(record.get("run_type"), str)
        and record["run_type"] in _RUN_TYPES
        and "inputs" in record
        and ("trace_id" in record or "parent_run_id" in record)
    )


def import_langsmith(path: str | Path, options: ImportOptions | None = None) -> Iterator[Run]:
    """Stream the runs of a LangSmith export (JSON or JSONL runs, plain or ``.gz``)::

        for run in import_langsmith("langsmith-runs.jsonl"):
            print(run.run_id, [call.name for call in run.tool_calls])

    A malformed export raises :class:`judgekit.errors.DataError` naming the file, the line
    and the field; so does a trace whose root run is not in the file.
    """
    source = Path(path)
    options = options if options is not None else ImportOptions()
    traces: dict[str, list[Record]] = {}
    trace_of: dict[str, str] = {}  # run id → its trace id
    unique = keep_first(
        _flattened(iter_records(source, (), _WHAT)),
        key=lambda record: _ids(record, trace_of)[0],
        # A run exported twice (flat, and in its root's child_runs) carries its children once.
        content=lambda record: {k: v for k, v in record.data.items() if k != "child_runs"},
        where=lambda record: record.where,
        what="run",
        dropped=options.duplicates,
        id_field="id",
    )
    for record in unique:
        run_id, trace_id = _ids(record, trace_of)
        trace_of[run_id] = trace_id
        traces.setdefault(trace_id, []).append(record)
    for records in traces.values():
        _refuse_cycles(records)
    default_task = options.task_id or file_stem(source)
    if not options.by_session:
        runs = (_run(trace_id, records, default_task) for trace_id, records in traces.items())
        return options.run_ids.apply(runs)
    return options.run_ids.apply(session_runs(_by_start(traces, default_task), "thread_id"))


def _by_start(traces: dict[str, list[Record]], default_task: str) -> list[tuple[str | None, Run]]:
    """Each trace's run in the order the traces started, with the thread it belongs to:
    the ``thread_id``, ``session_id`` or ``conversation_id`` its root's metadata carries
    (as LangSmith groups threads), None for a trace of no thread."""
    keyed: list[tuple[tuple[str, str], str | None, Run]] = []
    for trace_id, records in traces.items():
        run = _run(trace_id, records, default_task)  # a trace without its root is refused here
        root = min((r for r in records if r.data.get("parent_run_id") is None), key=_start_key)
        keyed.append((_start_key(root), _thread_id(root), run))
    keyed.sort(key=lambda item: item[0])
    return [(thread, run) for _, thread, run in keyed]


def _thread_id(root: Record) -> str | None:
    extra = optional_object(root.data, "extra", root.where) or {}
    metadata = extra.get("metadata")
    if not isinstance(metadata, dict):
        return None
    found = (metadata.get(key) for key in _THREAD_KEYS)
    return next((str(value) for value in found if isinstance(value, str | int) and value), None)


def _refuse_cycles(records: list[Record]) -> None:
    by_id = {str(record.data["id"]): record for record in records}
    parents = {key: record.data.get("parent_run_id") for key, record in by_id.items()}
    refuse_parent_cycles(parents, lambda key: by_id[key].where.key("parent_run_id"), "run")


def _flattened(records: Iterator[Record]) -> Iterator[Record]:
    for record in records:
        yield record
        children = record.data.get("child_runs")
        if children is None:
            continue
        where = record.where.key("child_runs")
        if not isinstance(children, list):
            raise where.error(f"expected a list of runs, got {describe_json(children)}")
        nested = (
            Record(_object(child, where.item(n)), where.item(n)) for n, child in enumerate(children)
        )
        yield from _flattened(nested)


def _object(value: Any, where: Location) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise where.error(f"expected {_WHAT}, got {describe_json(value)}")
    return value


def _ids(record: Record, trace_of: dict[str, str]) -> tuple[str, str]:
    """The run's id and its trace's id."""
    data, where = record.data, record.where
    run_type = required_string(data, "run_type", where)
    if run_type not in _RUN_TYPES:
        valid = ", ".join(sorted(_RUN_TYPES))
        raise where.key("run_type").error(f"unknown run type {run_type!r}; valid: {valid}")
    run_id = required_string(data, "id", where)
    parent = optional_string(data, "parent_run_id", where)
    trace = optional_string(data, "trace_id", where)
    if trace is None:
        # Older exports leave trace_id out: a root is its own trace, a child is in its
        # parent's (read before it when nested in child_runs).
        trace = run_id if parent is None else trace_of.get(parent)
    if trace is None:
        raise where.key("trace_id").error(
            "required field is missing (a child run needs its trace_id, or its parent "
            "earlier in the file)"
        )
    return run_id, trace


def _run(run_id: str, records: list[Record], default_task: str) -> Run:
    """The run of one trace, ``run_id`` its id."""
    roots = sorted((r for r in records if r.data.get("parent_run_id") is None), key=_start_key)
    if not roots:
        first = records[0]
        raise first.where.key("trace_id").error(
            f"trace {run_id!r} has no root run (one without parent_run_id) in this file; "
            "export whole traces"
        )
    first, last = roots[0], roots[-1]
    ordered = sorted(records, key=_start_key)
    llm_runs = [r for r in ordered if r.data["run_type"] == "llm"]
    ids: dict[str, Any] = {"trace_id": run_id}
    fields: dict[str, Any] = {
        "run_id": run_id,
        "task_id": optional_string(first.data, "reference_example_id", first.where) or default_task,
        "input": _input_text(first.data.get("inputs")),
        "final_answer": _answer_text(last.data.get("outputs")),
        "tool_calls": [_tool_call(r) for r in ordered if r.data["run_type"] == "tool"],
        "turns": len(llm_runs),
        "duration_s": seconds_between(first.data.get("start_time"), last.data.get("end_time")),
        "metadata": {**ids, **_metadata(first)},
        **_usage(llm_runs or roots),
    }
    errors = [e for r in roots if (e := optional_string(r.data, "error", r.where)) is not None]
    if errors:
        fields["stop_reason"] = "error"
        fields["metadata"]["error"] = error_message(exception_text(errors[-1]))
    try:
        return Run.model_validate({k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        problem = validation_error_to_data_error(exc, path=None, line=None)
        raise first.where.error(problem.message) from None


def _input_text(inputs: Any) -> str | None:
    """A graph's input state (or a chat model's messages) by its human message."""
    return first_human_text(inputs) or value_text(inputs)


def _answer_text(outputs: Any) -> str | None:
    """A graph's final state by its last AI message, any other output as it is."""
    return last_ai_text(outputs) or value_text(outputs)


def _start_key(record: Record) -> tuple[str, str]:
    # dotted_order encodes each ancestor's start time and id: the order runs started in.
    start = record.data.get("start_time")
    order = record.data.get("dotted_order")
    return (start if isinstance(start, str) else "", order if isinstance(order, str) else "")


def _tool_call(record: Record) -> ToolCall:
    data, where = record.data, record.where
    name = required_string(data, "name", where)
    inputs = optional_object(data, "inputs", where) or {}
    outputs = optional_object(data, "outputs", where)
    # A LangChain tool returns a ToolMessage, which answers the model's call by its id.
    outcome = tool_outcome(outputs)
    extra = optional_object(data, "extra", where) or {}
    call_id = extra.get("tool_call_id") or (outcome.tool_call_id if outcome else None)
    if not isinstance(call_id, str):
        call_id = optional_string(data, "id", where)
    call = new_tool_call(name, inputs, call_id)
    if outcome is not None:
        content = outcome.content
        call.result = parse_result(content) if isinstance(content, str) else content
        if outcome.failed:
            call.error = error_message(content if isinstance(content, str) else None)
    elif outputs is not None and outputs.keys() == {"output"}:
        call.result = outputs["output"]  # LangSmith wraps a tool's return value so
    else:
        call.result = outputs or None  # a failed tool's run has empty outputs
    error = optional_string(data, "error", where)
    if error is not None:
        call.error = error_message(exception_text(error))
    return call


def _usage(records: list[Record]) -> dict[str, Any]:
    tokens = {"input_tokens": 0, "output_tokens": 0}
    counted = False
    cost: float | None = None
    for record in records:
        for ours, count in _token_counts(record).items():
            tokens[ours] += count
            counted = True
        run_cost = optional_number(record.data, "total_cost", record.where)
        if run_cost is not None:
            cost = (cost or 0.0) + run_cost
    return {"usage": Usage.model_validate(tokens) if counted else None, "cost_usd": cost}


def _token_counts(record: Record) -> dict[str, int]:
    """A run's ``prompt_tokens`` and ``completion_tokens`` (LangSmith's totals), else the
    ``usage_metadata`` the tracer sent in its metadata (what LangSmith counts them from)."""
    counts = {}
    for ours, theirs in (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens")):
        count = optional_count(record.data, theirs, record.where)
        if count is not None:
            counts[ours] = count
    if counts:
        return counts
    extra = optional_object(record.data, "extra", record.where) or {}
    metadata = extra.get("metadata")
    usage = metadata.get("usage_metadata") if isinstance(metadata, dict) else None
    if not isinstance(usage, dict):
        return {}
    where = record.where.key("extra").key("metadata").key("usage_metadata")
    for ours in ("input_tokens", "output_tokens"):
        count = optional_count(usage, ours, where)
        if count is not None:
            counts[ours] = count
    return counts


def _metadata(root: Record) -> dict[str, Any]:
    found = {
        "name": root.data.get("name"),
        "tags": root.data.get("tags") or None,
        # LangSmith's "session" is the tracing project (its feedback asks for it); a
        # ``session_id`` in judgekit's metadata is a conversation's, as other importers write.
        "langsmith_project_id": root.data.get("session_id"),
    }
    return {key: value for key, value in found.items() if value is not None}


IMPORTER = Importer(
    name="langsmith",
    what="a LangSmith trace export (runs)",
    looks_like=looks_like_langsmith,
    read=import_langsmith,
    details="LangSmith runs as JSON or JSONL, as the client's list_runs returns them: each "
    "trace is one run (with --group-by session, the traces of one thread_id, session_id or "
    "conversation_id in the root's metadata, each turn's messages kept in order), its id "
    "the trace id, its task the root's reference_example_id (else --task-id, else the file "
    "name); tool runs in start order are the tool calls (inputs, outputs, a LangChain "
    "ToolMessage's content, error); llm runs are the turns, their tokens and costs summed; "
    "the final answer is the root's output, a graph state's last AI message.",
    groups=("session",),
)
