"""Runs from OpenInference spans (Arize Phoenix and the OpenInference instrumentations).

Each trace is a run (see :mod:`judgekit.importers.span_runs`), by the span kind in
``openinference.span.kind``. ``TOOL`` spans are its tool calls: ``tool.name``, the arguments
from ``input.value`` (JSON), the result from ``output.value``, the call id from
``tool_call.id`` (or ``tool.id``), an error status as the error. ``LLM`` spans are its
turns: ``llm.token_count.prompt`` / ``completion`` as usage, ``llm.cost.total`` summed as
the cost, ``llm.input_messages.N.message.*`` for the input (the first user message) and
``llm.output_messages.N.message.*`` for the answers and the tool calls the model asked for
(the run's calls when no TOOL span recorded an execution, with the ``tool`` messages of
later calls as results). ``AGENT`` spans give the agent's name, input and answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgekit.formats.run import Run, ToolCall
from judgekit.importers.interface import Importer, ImportOptions
from judgekit.importers.locations import describe_json
from judgekit.importers.run_draft import error_message, new_tool_call, parse_result
from judgekit.importers.span_graph import DroppedDuplicates
from judgekit.importers.span_runs import SpanRun, build_runs, string_attribute, token_counts
from judgekit.importers.spans import Span, looks_like_spans, read_spans, traces
from judgekit.importers.unique_ids import UniqueRunIds

__all__ = ["IMPORTER", "import_openinference"]

KIND = "openinference.span.kind"
_USAGE_KEYS = {
    "input_tokens": "llm.token_count.prompt",
    "output_tokens": "llm.token_count.completion",
    "cache_read_input_tokens": "llm.token_count.prompt_details.cache_read",
}
_CALL = "tool_call."


def import_openinference(
    path: str | Path,
    *,
    task_id: str | None = None,
    run_ids: UniqueRunIds | None = None,
    duplicates: DroppedDuplicates | None = None,
) -> Iterator[Run]:
    """The runs of a file of OpenInference spans: OTLP JSON (one document or one per line)
    or the OpenTelemetry SDK's ConsoleSpanExporter output. A run's id is its trace id::

        for run in import_openinference("phoenix-spans.jsonl"):
            print(run.run_id, [call.name for call in run.tool_calls])
    """
    spans = read_spans(Path(path))
    grouped = traces(spans, duplicates if duplicates is not None else DroppedDuplicates())
    runs = build_runs(grouped, _is_agent, _read_span, task_id)
    return (run_ids if run_ids is not None else UniqueRunIds()).apply(runs)


def _is_agent(span: Span) -> bool:
    return string_attribute(span, KIND) == "AGENT"


def _read_span(span: Span, run: SpanRun) -> None:
    kind = string_attribute(span, KIND)
    if kind == "TOOL":
        run.executed_calls.append(_executed_call(span))
    elif kind == "LLM":
        _read_llm_span(span, run)
    elif kind == "AGENT":
        _read_agent_span(span, run)


def _executed_call(span: Span) -> ToolCall:
    name = string_attribute(span, "tool.name") or span.name
    call_id = string_attribute(span, "tool_call.id") or string_attribute(span, "tool.id")
    call = new_tool_call(name, string_attribute(span, "input.value"), call_id)
    output = string_attribute(span, "output.value")
    call.result = parse_result(output)
    if span.error is not None:
        call.error = error_message(span.error if span.error != "error" else output)
    return call


def _read_llm_span(span: Span, run: SpanRun) -> None:
    run.model_turns += 1
    usage = token_counts(span, _USAGE_KEYS)
    if usage:
        run.model_usage_seen = True
        run.draft.add_usage(usage, span.where.key("attributes"))
    _add_cost(span, run)
    model = string_attribute(span, "llm.model_name")
    if model is not None:
        run.draft.conversation.metadata.setdefault("model", model)
    for message in _messages(span, "llm.input_messages."):
        role = message.get("message.role")
        if role == "user":
            run.draft.add_user_text(_content(message))
        elif role == "tool" and isinstance(message.get("message.tool_call_id"), str):
            result = parse_result(_content(message))
            run.model_results[message["message.tool_call_id"]] = (result, None)
    turns = run.draft.turns
    for message in _messages(span, "llm.output_messages."):
        run.draft.add_assistant_message(_content(message))
        run.model_calls.extend(_requested_calls(message))
    run.draft.turns = turns


def _add_cost(span: Span, run: SpanRun) -> None:
    cost = span.attributes.get("llm.cost.total")
    if cost is None:
        return
    if not isinstance(cost, int | float) or isinstance(cost, bool) or cost < 0:
        where = span.where.key("attributes").key("llm.cost.total")
        raise where.error(f"expected a cost in USD (a number ≥ 0), got {describe_json(cost)}")
    carried = run.draft.conversation.carried
    carried["cost_usd"] = carried.get("cost_usd", 0.0) + cost


def _read_agent_span(span: Span, run: SpanRun) -> None:
    name = string_attribute(span, "agent.name")
    if name is not None:
        run.draft.conversation.metadata.setdefault("agent_name", name)
    if run.agent_input is None:
        run.agent_input = string_attribute(span, "input.value")
    run.agent_answer = string_attribute(span, "output.value") or run.agent_answer


def _messages(span: Span, prefix: str) -> list[dict[str, Any]]:
    """Flattened messages (``llm.output_messages.0.message.role``, ...) as one dict each,
    keyed by the rest of the attribute name (``message.role``), in index order."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        if not key.startswith(prefix):
            continue
        number, _, rest = key[len(prefix) :].partition(".")
        if number.isdigit() and rest:
            found.setdefault(int(number), {})[rest] = value
    return [found[index] for index in sorted(found)]


def _content(message: dict[str, Any]) -> str | None:
    content = message.get("message.content")
    if isinstance(content, str):
        return content
    texts = [
        value
        for key, value in sorted(message.items())
        if key.startswith("message.contents.") and key.endswith(".message_content.text")
    ]
    return "\n".join(text for text in texts if isinstance(text, str)) or None


def _requested_calls(message: dict[str, Any]) -> list[ToolCall]:
    calls: dict[int, dict[str, Any]] = {}
    for key, value in message.items():
        if key.startswith("message.tool_calls."):
            number, _, rest = key.removeprefix("message.tool_calls.").partition(".")
            if number.isdigit():
                calls.setdefault(int(number), {})[rest.removeprefix(_CALL)] = value
    requested = []
    for index in sorted(calls):
        call = calls[index]
        name = call.get("function.name")
        if isinstance(name, str):
            call_id = call.get("id")
            arguments = call.get("function.arguments")
            requested.append(
                new_tool_call(name, arguments, call_id if isinstance(call_id, str) else None)
            )
    return requested


def looks_like_openinference(head: object) -> bool:
    """Spans (OTLP JSON or console exporter) carrying ``openinference.span.kind``."""
    return looks_like_spans(head, KIND)


def _read(path: Path, options: ImportOptions) -> Iterator[Run]:
    return import_openinference(
        path, task_id=options.task_id, run_ids=options.run_ids, duplicates=options.duplicates
    )


IMPORTER = Importer(
    name="openinference",
    what="OpenInference spans",
    looks_like=looks_like_openinference,
    read=_read,
    details=(
        "FILE holds spans following the OpenInference conventions (Arize Phoenix, the "
        "OpenInference instrumentations): OTLP JSON, one document or one per line, or the "
        "OpenTelemetry SDK's ConsoleSpanExporter output. Each trace is a run: TOOL spans are "
        "its tool calls (input.value the arguments, output.value the result), LLM spans its "
        "turns, token counts and cost, the last LLM output message its final answer."
    ),
)
