"""Runs from OpenInference spans (Arize Phoenix and the OpenInference instrumentations).

Each trace is a run (see :mod:`judgekit.importers.span_runs`; several ``AGENT`` spans at
its root, several runs), by the span kind in ``openinference.span.kind``; grouped by
session, the traces of one ``session.id`` are one run, every turn's messages kept.
``TOOL`` spans are its tool calls: ``tool.name``, the arguments from ``input.value``
(JSON) or, when it holds none, from the call the model asked for (LangChain writes a
one-argument tool's input as the bare value), the result from ``output.value`` (a
LangChain ToolMessage's ``content``, its status ``error`` the call's error), the call id from ``tool_call.id`` (or ``tool.id``, or the
ToolMessage's ``tool_call_id``), an error status as the error. ``LLM`` spans are its
turns: ``llm.token_count.prompt`` / ``completion`` as usage, ``llm.cost.total`` summed as
the cost, ``llm.input_messages.N.message.*`` for the input (the first user message, unless
the root's input is a graph state with a human message) and
``llm.output_messages.N.message.*`` for the answers and the tool calls the model asked for
(the run's calls when no TOOL span recorded an execution, with the ``tool`` messages of
later calls as results). ``AGENT`` spans give the agent's name, input and answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from judgekit._util.jsonl import parse_json
from judgekit.formats.run import Run, ToolCall
from judgekit.importers.interface import Importer, ImportOptions
from judgekit.importers.langchain_messages import (
    exception_text,
    first_human_text,
    last_ai_text,
    tool_outcome,
)
from judgekit.importers.locations import describe_json
from judgekit.importers.run_draft import error_message, new_tool_call, parse_result
from judgekit.importers.span_graph import DroppedDuplicates
from judgekit.importers.span_runs import (
    SpanRun,
    build_runs,
    by_session,
    string_attribute,
    token_counts,
)
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
    group_by: str = "trace",
) -> Iterator[Run]:
    """The runs of a file of OpenInference spans: OTLP JSON (one document or one per line)
    or the OpenTelemetry SDK's ConsoleSpanExporter output. A run's id is its trace id, or
    with ``group_by="session"`` its ``session.id`` (the traces of one session make one run)::

        for run in import_openinference("phoenix-spans.jsonl"):
            print(run.run_id, [call.name for call in run.tool_calls])
    """
    spans = read_spans(Path(path))
    grouped = traces(spans, duplicates if duplicates is not None else DroppedDuplicates())
    if ImportOptions(group_by=group_by).by_session:
        runs = by_session(grouped, lambda trace: build_runs(trace, _never, _read_span, task_id))
    else:
        runs = build_runs(grouped, _root_agents(grouped), _read_span, task_id)
    return (run_ids if run_ids is not None else UniqueRunIds()).apply(runs)


def _root_agents(grouped: list[list[Span]]) -> Callable[[Span], bool]:
    """Whether a span is an AGENT span at the root of its trace: several of them are
    several runs. An AGENT span inside a trace is a step of its run (LangChain's
    instrumentation makes every LangGraph node named ``agent`` one)."""
    roots: set[tuple[str, str]] = set()
    for trace in grouped:
        ids = {span.span_id for span in trace}
        roots.update((s.trace_id, s.span_id) for s in trace if s.parent_id not in ids)

    def is_agent(span: Span) -> bool:
        return (span.trace_id, span.span_id) in roots and string_attribute(span, KIND) == "AGENT"

    return is_agent


def _never(span: Span) -> bool:
    return False


def _read_span(span: Span, run: SpanRun) -> None:
    kind = string_attribute(span, KIND)
    if span is run.root:
        # A graph's input state: its human message is this run's question, where a chat
        # model's input holds the thread's earlier messages too.
        state = _json_or_none(span.attributes.get("input.value"))
        run.draft.add_user_text(first_human_text(state))
    if kind == "TOOL":
        run.executed_calls.append(_executed_call(span, run))
    elif kind == "LLM":
        _read_llm_span(span, run)
    elif kind == "AGENT":
        _read_agent_span(span, run)


def _executed_call(span: Span, run: SpanRun) -> ToolCall:
    name = string_attribute(span, "tool.name") or span.name
    call_id = string_attribute(span, "tool_call.id") or string_attribute(span, "tool.id")
    output = string_attribute(span, "output.value")
    outcome = tool_outcome(_json_or_none(output))
    if call_id is None and outcome is not None:
        call_id = outcome.tool_call_id
    arguments = string_attribute(span, "input.value")
    requested = _requested_call(run, name, call_id, isinstance(_json_or_none(arguments), dict))
    if requested is not None:
        # LangChain writes a one-argument tool's input as the bare value: the model's own
        # call holds the arguments as sent.
        call = requested.model_copy(deep=True)
    else:
        call = new_tool_call(name, arguments, call_id)
    if outcome is not None:
        content = outcome.content
        call.result = parse_result(content) if isinstance(content, str) else content
        if outcome.failed:
            call.error = error_message(content if isinstance(content, str) else output)
    else:
        call.result = parse_result(output)
    if span.error is not None:
        text = output if span.error == "error" else exception_text(span.error)
        call.error = error_message(text)
    return call


def _requested_call(
    run: SpanRun, name: str, call_id: str | None, has_arguments: bool
) -> ToolCall | None:
    """The call the model asked for that a TOOL span executes: the one of its id; for a
    span of no id whose input is not an arguments object, the first of its name that no
    executed call answered yet."""
    taken = {call.id for call in run.executed_calls if call.id is not None}
    waiting = [c for c in run.model_calls if c.name == name and c.id not in taken]
    if call_id is not None:
        return next((c for c in waiting if c.id == call_id), None)
    return waiting[0] if waiting and not has_arguments else None


def _json_or_none(text: Any) -> Any:
    """The JSON object a text holds, None when it holds none."""
    if not isinstance(text, str) or not text.lstrip().startswith("{"):
        return None
    try:
        return parse_json(text)
    except ValueError:
        return None


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
    text = string_attribute(span, "input.value")
    if run.agent_input is None and text is not None:
        run.agent_input = first_human_text(_json_or_none(text)) or text
    text = string_attribute(span, "output.value")
    if text is not None:  # a graph's state: its last AI message is the answer
        run.agent_answer = last_ai_text(_json_or_none(text)) or text


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
        path,
        task_id=options.task_id,
        run_ids=options.run_ids,
        duplicates=options.duplicates,
        group_by=options.group_by,
    )


IMPORTER = Importer(
    name="openinference",
    what="OpenInference spans",
    looks_like=looks_like_openinference,
    read=_read,
    details=(
        "FILE holds spans following the OpenInference conventions (Arize Phoenix, the "
        "OpenInference instrumentations): OTLP JSON, one document or one per line, or the "
        "OpenTelemetry SDK's ConsoleSpanExporter output. Each trace is a run (with "
        "--group-by session, the traces of one session.id, as LangGraph's thread_id sets it, "
        "each turn's messages kept in order): "
        "TOOL spans are its tool calls (the arguments the model sent or input.value; "
        "output.value the result, a LangChain ToolMessage's content), LLM spans its turns, "
        "token counts and cost, the last LLM output message its final answer."
    ),
    groups=("session",),
)
