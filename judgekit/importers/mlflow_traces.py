"""Runs from MLflow traces (``mlflow.trace``, ``mlflow.start_span``, the autolog integrations).

Each trace is a run, its id the trace id (``tr-…``); grouped by thread, the traces of one
session (``mlflow.trace.session`` in the trace's metadata) are one run, its id the
session's (see :mod:`judgekit.importers.span_runs`). Spans are read by their
``mlflow.spanType``: each ``TOOL`` span, in start order, is a tool call (its name, the
arguments from ``mlflow.spanInputs``, the result from ``mlflow.spanOutputs``, an error status
its error, else a result text matching the error pattern; the call's id that of the call the
model asked for). Each ``CHAT_MODEL`` / ``LLM`` span is a turn: ``mlflow.chat.tokenUsage``
summed as the usage, ``mlflow.llm.cost`` as the cost, the first user message of its input
``messages`` the run's input, its output (an OpenAI chat completion, an Anthropic message,
or a text) an answer and the tool calls the model asked for (the run's calls when no TOOL
span recorded an execution). The root span's inputs are the input when no chat model was
asked, and its outputs the final answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgekit.formats.run import Run, ToolCall
from judgekit.importers.conversations import content_text
from judgekit.importers.interface import Importer, ImportOptions
from judgekit.importers.langchain_messages import first_human_text, last_ai_text
from judgekit.importers.locations import Location, as_object, describe_json
from judgekit.importers.mlflow_files import TraceFacts, read_mlflow_traces
from judgekit.importers.run_draft import error_message, new_tool_call, parse_result
from judgekit.importers.span_runs import SpanRun, build_runs, by_session, string_attribute
from judgekit.importers.spans import Span, traces
from judgekit.importers.trace_records import value_text

__all__ = ["IMPORTER", "import_mlflow", "looks_like_mlflow"]

SPAN_TYPE = "mlflow.spanType"
INPUTS = "mlflow.spanInputs"
OUTPUTS = "mlflow.spanOutputs"
TOKEN_USAGE = "mlflow.chat.tokenUsage"
COST = "mlflow.llm.cost"
MODEL = "mlflow.llm.model"
_CHAT_TYPES = frozenset({"CHAT_MODEL", "LLM"})
_TOKEN_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def looks_like_mlflow(head: object) -> bool:
    """An MLflow trace (or a list of them): ``info`` with a ``trace_id`` (``request_id``
    before MLflow 3) beside ``data`` with a ``spans`` list."""
    record = head[0] if isinstance(head, list) and head else head
    if not isinstance(record, dict):
        return False
    info, data = record.get("info"), record.get("data")
    return (
        isinstance(info, dict)
        and ("trace_id" in info or "request_id" in info)
        and isinstance(data, dict)
        and isinstance(data.get("spans"), list)
    )


def import_mlflow(path: str | Path, options: ImportOptions | None = None) -> Iterator[Run]:
    """Stream the runs of a file of MLflow traces (``Trace.to_json()`` per line, or a JSON
    list of ``Trace.to_dict()``, plain or ``.gz``)::

        for run in import_mlflow("traces.jsonl"):
            print(run.run_id, [call.name for call in run.tool_calls])

    A malformed file raises :class:`judgekit.errors.DataError` naming file, line and field.
    """
    options = options if options is not None else ImportOptions()
    spans, facts = read_mlflow_traces(Path(path))
    grouped = traces(iter(spans), options.duplicates)
    pattern = re.compile(options.error_pattern) if options.error_pattern else None

    def read_span(span: Span, run: SpanRun) -> None:
        _read_span(span, run, facts, pattern)

    def build(trace_spans: list[list[Span]]) -> list[Run]:
        return build_runs(trace_spans, _never, read_span, options.task_id)

    runs = by_session(grouped, build) if options.by_session else build(grouped)
    return options.run_ids.apply(runs)


def _never(span: Span) -> bool:
    return False  # an MLflow trace has one root: it is one run


def _read_span(
    span: Span, run: SpanRun, facts: dict[str, TraceFacts], pattern: re.Pattern[str] | None
) -> None:
    kind = string_attribute(span, SPAN_TYPE)
    if span.parent_id is None or span is run.root:
        _read_root(span, run, facts[span.trace_id])
    if kind == "TOOL":
        run.executed_calls.append(_executed_call(span, run, pattern))
    elif kind in _CHAT_TYPES:
        _read_chat_span(span, run, pattern)
    elif kind == "AGENT":
        run.draft.conversation.metadata.setdefault("agent_name", span.name)


def _read_root(span: Span, run: SpanRun, facts: TraceFacts) -> None:
    """A trace's top span: its inputs and outputs, and what the trace's info says."""
    metadata = run.draft.conversation.metadata
    for key, value in (("session_id", facts.session), ("user_id", facts.user)):
        if value is not None:
            metadata.setdefault(key, value)
    if facts.name is not None:
        metadata.setdefault("name", facts.name)
    inputs = span.attributes.get(INPUTS)
    if run.agent_input is None:
        run.agent_input = first_human_text(inputs) or value_text(inputs)
    outputs = span.attributes.get(OUTPUTS)
    chat = _chat_output(outputs)
    answer = chat[0] if chat is not None else None
    run.root_answer = answer or last_ai_text(outputs) or value_text(outputs)
    if span.error is not None:
        metadata["error"] = error_message(span.error)


def _executed_call(span: Span, run: SpanRun, pattern: re.Pattern[str] | None) -> ToolCall:
    inputs = span.attributes.get(INPUTS)
    requested = _requested_call(run, span.name, inputs)
    arguments = inputs if isinstance(inputs, dict) or inputs is None else _json(inputs)
    call = new_tool_call(span.name, arguments, requested.id if requested else None)
    call.result = span.attributes.get(OUTPUTS)
    if span.error is not None:
        call.error = error_message(span.error)
    elif pattern is not None and isinstance(call.result, str) and pattern.search(call.result):
        call.error = error_message(call.result)
    return call


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _requested_call(run: SpanRun, name: str, inputs: Any) -> ToolCall | None:
    """The call the model asked for that a TOOL span ran: the first one of its name and
    arguments that no earlier TOOL span answered, else the first of its name."""
    taken = {call.id for call in run.executed_calls if call.id is not None}
    waiting = [c for c in run.model_calls if c.name == name and c.id not in taken]
    same = [c for c in waiting if c.args == inputs]
    return next(iter(same or waiting), None)


def _read_chat_span(span: Span, run: SpanRun, pattern: re.Pattern[str] | None) -> None:
    run.model_turns += 1
    attributes = span.where.key("attributes")
    usage = span.attributes.get(TOKEN_USAGE)
    if usage is not None:
        counts = as_object(usage, attributes.key(TOKEN_USAGE), "a token usage object")
        run.model_usage_seen = True
        run.draft.add_usage(
            {k: counts[k] for k in _TOKEN_KEYS if k in counts}, attributes.key(TOKEN_USAGE)
        )
    _add_cost(span, run)
    model = span.attributes.get(MODEL)
    if isinstance(model, str):
        run.draft.conversation.metadata.setdefault("model", model)
    inputs = span.attributes.get(INPUTS)
    messages = inputs.get("messages") if isinstance(inputs, dict) else None
    if isinstance(messages, list):
        _read_messages(messages, attributes.key(INPUTS).key("messages"), run, pattern)
    outputs = span.attributes.get(OUTPUTS)
    chat = _chat_output(outputs)
    if chat is not None:
        text, calls = chat
    else:
        text, calls = (outputs if isinstance(outputs, str) else None), []
    turns = run.draft.turns
    run.draft.add_assistant_message(text)
    run.draft.turns = turns
    run.model_calls.extend(calls)


def _read_messages(
    messages: list[Any], where: Location, run: SpanRun, pattern: re.Pattern[str] | None
) -> None:
    """The messages a model was sent: the first user text is the run's input; the results
    of earlier calls (OpenAI's ``tool`` messages, Anthropic's ``tool_result`` blocks) answer
    the calls the model asked for, when no TOOL span ran them."""
    for number, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        content_where = where.item(number).key("content")
        text = content_text(message.get("content"), content_where)
        if message.get("role") == "user":
            run.draft.add_user_text(text)
        elif message.get("role") == "tool" and isinstance(message.get("tool_call_id"), str):
            failed = pattern is not None and text is not None and pattern.search(text)
            error = error_message(text) if failed else None
            run.model_results[message["tool_call_id"]] = (parse_result(text), error)
        content = message.get("content")
        for n, block in enumerate(content if isinstance(content, list) else []):
            if block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                result = content_text(block.get("content"), content_where.item(n).key("content"))
                error = error_message(result) if block.get("is_error") is True else None
                run.model_results[block["tool_use_id"]] = (parse_result(result), error)


def _add_cost(span: Span, run: SpanRun) -> None:
    cost = span.attributes.get(COST)
    if cost is None:
        return
    where = span.where.key("attributes").key(COST)
    total = as_object(cost, where, "a cost object with `total_cost`").get("total_cost")
    if not isinstance(total, int | float) or isinstance(total, bool) or not total >= 0:
        raise where.key("total_cost").error(
            f"expected a cost in USD (a number ≥ 0), got {describe_json(total)}"
        )
    carried = run.draft.conversation.carried
    carried["cost_usd"] = carried.get("cost_usd", 0.0) + total


def _chat_output(outputs: Any) -> tuple[str | None, list[ToolCall]] | None:
    """The text and the tool calls the model asked for of an OpenAI chat completion
    (``choices``) or an Anthropic message (``content`` blocks); None for other outputs."""
    if not isinstance(outputs, dict):
        return None
    choices = outputs.get("choices")
    if isinstance(choices, list):
        first = choices[0] if choices and isinstance(choices[0], dict) else {}
        message = first.get("message")
        if not isinstance(message, dict):
            return None, []
        content = message.get("content")
        calls = []
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                call_id = call.get("id")
                calls.append(
                    new_tool_call(
                        function["name"],
                        function.get("arguments"),
                        call_id if isinstance(call_id, str) else None,
                    )
                )
        return (content if isinstance(content, str) else None), calls
    blocks = outputs.get("content")
    if not isinstance(blocks, list):
        return None
    texts, calls = [], []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_use" and isinstance(block.get("name"), str):
            call_id = block.get("id")
            calls.append(
                new_tool_call(
                    block["name"], block.get("input"), call_id if isinstance(call_id, str) else None
                )
            )
    return ("\n".join(texts) or None), calls


def _read(path: Path, options: ImportOptions) -> Iterator[Run]:
    return import_mlflow(path, options)


IMPORTER = Importer(
    name="mlflow",
    what="MLflow traces",
    looks_like=looks_like_mlflow,
    read=_read,
    details=(
        "FILE holds MLflow traces as MLflow's SDK writes them: Trace.to_json() per line, or "
        "a JSON list of Trace.to_dict() (mlflow.search_traces(return_type='list')), of "
        "MLflow 3 or 2. Each trace is a run, its id the trace id (with --group-by session, "
        "the traces of one mlflow.trace.session, its id the session's): TOOL spans are its "
        "tool calls (mlflow.spanInputs the arguments, mlflow.spanOutputs the result, an "
        "error status or a result matching --error-pattern the error), CHAT_MODEL and LLM "
        "spans its turns and token usage (mlflow.chat.tokenUsage), the first user message "
        "its input, the root span's outputs its final answer."
    ),
    guesses_errors=True,
    groups=("thread",),
)
