"""Runs from OpenTelemetry GenAI spans (the ``gen_ai.*`` semantic conventions).

Each trace is a run (see :mod:`judgekit.importers.span_runs`). ``execute_tool`` spans are
its tool calls: ``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``
and ``gen_ai.tool.call.result`` (``tool_arguments`` and ``tool_response`` in pydantic-ai's
instrumentation version 2); a call failed when its span's status is an error (its
description is the error) or it carries ``error.type``. Model spans (``chat``,
``text_completion``, ``generate_content``) are its turns: token usage from
``gen_ai.usage.input_tokens`` / ``output_tokens``, the input from the first user message of
``gen_ai.input.messages``, the answers from ``gen_ai.output.messages`` (the last one is the
final answer). When no tool execution was recorded, the tool calls the model asked for in
its output messages are the calls, with the ``tool_call_response`` parts of later input
messages as results. ``invoke_agent`` spans give the agent's name and, when no model span
has them, its usage, input and answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgekit._util.jsonl import parse_json
from judgekit.formats.run import Run, ToolCall
from judgekit.importers.interface import Importer, ImportOptions
from judgekit.importers.locations import Location, describe_json
from judgekit.importers.run_draft import error_message, new_tool_call, parse_result
from judgekit.importers.span_graph import DroppedDuplicates
from judgekit.importers.span_runs import SpanRun, build_runs, string_attribute, token_counts
from judgekit.importers.spans import Span, looks_like_spans, read_spans, traces
from judgekit.importers.unique_ids import UniqueRunIds

__all__ = ["IMPORTER", "import_otel"]

OPERATION = "gen_ai.operation.name"
MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_LEGACY_OPERATIONS = {"chat": "chat", "completion": "text_completion"}
_MODEL_KEYS = ("gen_ai.response.model", "gen_ai.request.model")
_USAGE_KEYS = {
    "input_tokens": "gen_ai.usage.input_tokens",
    "output_tokens": "gen_ai.usage.output_tokens",
    "cache_read_input_tokens": "gen_ai.usage.cache_read.input_tokens",
}
# The names before semantic conventions 1.27, still written by some instrumentations.
_OLD_USAGE_KEYS = {
    "input_tokens": "gen_ai.usage.prompt_tokens",
    "output_tokens": "gen_ai.usage.completion_tokens",
}


def import_otel(
    path: str | Path,
    *,
    task_id: str | None = None,
    run_ids: UniqueRunIds | None = None,
    duplicates: DroppedDuplicates | None = None,
) -> Iterator[Run]:
    """The runs of a file of OpenTelemetry GenAI spans: OTLP JSON (one document or one per
    line) or the SDK's ConsoleSpanExporter output. A run's id is its trace id::

        for run in import_otel("traces.jsonl"):
            print(run.run_id, [call.name for call in run.tool_calls])
    """
    spans = read_spans(Path(path))
    grouped = traces(spans, duplicates if duplicates is not None else DroppedDuplicates())
    runs = build_runs(grouped, _is_agent, _read_span, task_id)
    return (run_ids if run_ids is not None else UniqueRunIds()).apply(runs)


def _is_agent(span: Span) -> bool:
    return string_attribute(span, OPERATION) == "invoke_agent"


def _read_span(span: Span, run: SpanRun) -> None:
    # OpenLLMetry names a model call's kind in llm.request.type ("chat", "completion").
    operation = string_attribute(span, OPERATION) or _LEGACY_OPERATIONS.get(
        string_attribute(span, "llm.request.type") or ""
    )
    if operation == "execute_tool":
        run.executed_calls.append(_executed_call(span))
    elif operation in MODEL_OPERATIONS:
        _read_model_span(span, run)
    elif operation == "invoke_agent":
        _read_agent_span(span, run)


def _attributes_where(span: Span, key: str) -> Location:
    return span.where.key("attributes").key(key)


def _executed_call(span: Span) -> ToolCall:
    attributes = span.attributes
    name = string_attribute(span, "gen_ai.tool.name")
    if name is None:
        name = span.name.removeprefix("execute_tool").strip() or span.name
    call_id = string_attribute(span, "gen_ai.tool.call.id")
    arguments, result = _tool_attributes(span)
    call = new_tool_call(name, arguments, call_id or None)
    call.result = parse_result(result) if isinstance(result, str) else result
    error_type = attributes.get("error.type")
    if span.error is not None or error_type is not None:
        stated = span.error if span.error not in (None, "error") else error_type
        call.error = error_message(str(stated) if stated is not None else None)
    return call


# pydantic-ai's instrumentation version 2 names a tool span's arguments and result its own
# way (`running tool` spans); versions 3 and later use the semantic conventions' names.
_TOOL_ATTRIBUTES = (
    ("gen_ai.tool.call.arguments", "gen_ai.tool.call.result"),
    ("tool_arguments", "tool_response"),
)


def _tool_attributes(span: Span) -> tuple[Any, Any]:
    for arguments, result in _TOOL_ATTRIBUTES:
        if arguments in span.attributes or result in span.attributes:
            return span.attributes.get(arguments), span.attributes.get(result)
    return None, None


def _read_model_span(span: Span, run: SpanRun) -> None:
    run.model_turns += 1
    usage = _usage(span)
    if usage:
        run.model_usage_seen = True
        run.draft.add_usage(usage, span.where.key("attributes"))
    _model_name(span, run)
    for message in _messages(span, "gen_ai.input.messages"):
        for part in _parts(message):
            if part.get("type") == "tool_call_response" and part.get("id") is not None:
                response = part.get("response", part.get("result"))
                result = parse_result(response) if isinstance(response, str) else response
                run.model_results[str(part["id"])] = (result, None)
        if message.get("role") == "user":
            run.draft.add_user_text(_text(message))
    turns = run.draft.turns
    for message in _messages(span, "gen_ai.output.messages"):
        run.draft.add_assistant_message(_text(message))
        for part in _parts(message):
            if part.get("type") == "tool_call" and isinstance(part.get("name"), str):
                call_id = part.get("id")
                run.model_calls.append(
                    new_tool_call(
                        part["name"], part.get("arguments"), str(call_id) if call_id else None
                    )
                )
    run.draft.turns = turns


def _read_agent_span(span: Span, run: SpanRun) -> None:
    name = string_attribute(span, "gen_ai.agent.name")
    if name is not None:
        run.draft.conversation.metadata.setdefault("agent_name", name)
    usage = _usage(span)
    if usage and run.agent_usage is None:
        run.agent_usage = (usage, span.where.key("attributes"))
    for message in _messages(span, "gen_ai.input.messages"):
        if message.get("role") == "user" and run.agent_input is None:
            run.agent_input = _text(message)
    for message in _messages(span, "gen_ai.output.messages"):
        run.agent_answer = _text(message) or run.agent_answer


def _usage(span: Span) -> dict[str, int]:
    return token_counts(span, _USAGE_KEYS) or token_counts(span, _OLD_USAGE_KEYS)


def _model_name(span: Span, run: SpanRun) -> None:
    for key in _MODEL_KEYS:
        model = string_attribute(span, key)
        if model is not None:
            run.draft.conversation.metadata.setdefault("model", model)
            return


def _messages(span: Span, key: str) -> list[dict[str, Any]]:
    """The messages of a ``gen_ai.*.messages`` attribute: a JSON string or a list."""
    value = span.attributes.get(key)
    if value is None:
        return []
    where = _attributes_where(span, key)
    if isinstance(value, str):
        try:
            value = parse_json(value)
        except json.JSONDecodeError as exc:
            raise where.error(f"malformed JSON at column {exc.colno}: {exc.msg}") from None
    if not isinstance(value, list) or not all(isinstance(m, dict) for m in value):
        raise where.error(
            f"expected a list of messages ({{role, parts}} objects), got {describe_json(value)}"
        )
    return value


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    parts = message.get("parts")
    return [part for part in parts if isinstance(part, dict)] if isinstance(parts, list) else []


def _text(message: dict[str, Any]) -> str | None:
    texts = [
        part["content"]
        for part in _parts(message)
        if part.get("type") == "text" and isinstance(part.get("content"), str)
    ]
    return "\n".join(texts) if texts else None


def looks_like_otel(head: object) -> bool:
    """Spans (OTLP JSON or console exporter) carrying ``gen_ai.*`` attributes."""
    return looks_like_spans(head, "gen_ai.")


def _read(path: Path, options: ImportOptions) -> Iterator[Run]:
    return import_otel(
        path, task_id=options.task_id, run_ids=options.run_ids, duplicates=options.duplicates
    )


IMPORTER = Importer(
    name="otel",
    what="OpenTelemetry GenAI spans",
    looks_like=looks_like_otel,
    read=_read,
    details=(
        "FILE holds spans following the OpenTelemetry GenAI semantic conventions: OTLP JSON "
        '({"resourceSpans": ...}, one document or one per line, as the collector\'s file '
        "exporter writes) or the SDK's ConsoleSpanExporter output. Each trace is a run (each "
        "top-level invoke_agent span, when a trace holds several): execute_tool spans are its "
        "tool calls, chat spans its turns and token usage, the last chat output its final answer."
    ),
)
