"""Runs assembled from the spans of a trace, for the span-based importers (otel, openinference).

A trace is one run, unless it holds several top-level agent spans (one process running
many agents in one trace): then each agent span and the spans below it is a run. The
format-specific importer reads each span into a :class:`SpanRun`. A run's metadata keeps
its ``trace_id`` and its root span's ``root_span_id`` (a session's run: ``trace_ids`` and
``root_span_ids``), which labels of the trace on its platform are joined by.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from judgekit.formats.run import Run, ToolCall
from judgekit.importers.conversations import Conversation
from judgekit.importers.locations import Location, describe_json
from judgekit.importers.run_draft import RunDraft, file_stem
from judgekit.importers.sessions import session_runs
from judgekit.importers.spans import Span

__all__ = [
    "SpanRun",
    "build_runs",
    "by_session",
    "split_trace",
    "string_attribute",
    "token_counts",
]

NS_PER_S = 1_000_000_000


@dataclass
class SpanRun:
    """What the spans of one run say, gathered span by span before the Run is built.

    ``model_calls`` holds the tool calls the model asked for in its messages; they are the
    run's calls only when no span recorded a tool's execution. ``root`` is the run's top span.
    """

    draft: RunDraft
    executed_calls: list[ToolCall] = field(default_factory=list)
    model_calls: list[ToolCall] = field(default_factory=list)
    model_results: dict[str, tuple[Any, str | None]] = field(default_factory=dict)
    model_turns: int = 0
    model_usage_seen: bool = False
    agent_usage: tuple[dict[str, Any], Location] | None = None
    agent_input: str | None = None
    agent_answer: str | None = None
    # The answer as the top span returned it, which wins over the model's last message.
    root_answer: str | None = None
    root: Span | None = None


def string_attribute(span: Span, key: str) -> str | None:
    """The span's attribute ``key`` when it is a string, None when absent, else a DataError."""
    value = span.attributes.get(key)
    if value is None or isinstance(value, str):
        return value
    where = span.where.key("attributes").key(key)
    raise where.error(f"expected a string, got {describe_json(value)}")


def token_counts(span: Span, keys: dict[str, str]) -> dict[str, int]:
    """The token counts a span's attributes hold, by judgekit's name (``keys``: judgekit's
    name → the attribute); a count that is not a whole number ≥ 0 is a DataError."""
    counts: dict[str, int] = {}
    for name, key in keys.items():
        value = span.attributes.get(key)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            where = span.where.key("attributes").key(key)
            raise where.error(f"expected a whole number of tokens, got {describe_json(value)}")
        counts[name] = value
    return counts


def split_trace(spans: list[Span], is_agent: Callable[[Span], bool]) -> list[list[Span]]:
    """The runs of one trace: the whole trace, or one per top-level agent span. The trace's
    parent links are free of cycles (:func:`judgekit.importers.spans.traces` checked them)."""
    top = _top_agents(spans, is_agent)
    tops = [span for span in spans if is_agent(span) and top[span.span_id] is span]
    if len(tops) < 2:
        return [spans]
    runs: dict[str, list[Span]] = {agent.span_id: [] for agent in tops}
    for span in spans:
        agent = top[span.span_id]
        if agent is not None:
            runs[agent.span_id].append(span)
    return list(runs.values())


def _top_agents(spans: list[Span], is_agent: Callable[[Span], bool]) -> dict[str, Span | None]:
    """Each span's highest agent span among itself and its ancestors (None: none is an
    agent), each span visited once, however deep the trace."""
    by_id = {span.span_id: span for span in spans}
    top: dict[str, Span | None] = {}
    for span in spans:
        chain: list[Span] = []
        current: Span | None = span
        while current is not None and current.span_id not in top:
            chain.append(current)
            parent = current.parent_id
            current = by_id.get(parent) if parent is not None else None
            if len(chain) > len(by_id):  # only a cycle, which traces() refused, gets here
                raise AssertionError(f"span parents loop at {span.span_id}")
        above = top[current.span_id] if current is not None else None
        for member in reversed(chain):  # from the highest down
            if above is None and is_agent(member):
                above = member
            top[member.span_id] = above
    return top


def build_runs(
    traces: list[list[Span]],
    is_agent: Callable[[Span], bool],
    read_span: Callable[[Span, SpanRun], None],
    task_id: str | None,
) -> list[Run]:
    """A Run per trace (or per top-level agent span), each span read by ``read_span``."""
    runs: list[Run] = []
    for trace in traces:
        parts = split_trace(trace, is_agent)
        for spans in parts:
            runs.append(_run(spans, len(runs), len(parts) > 1, read_span, task_id))
    return runs


def by_session(
    traces: list[list[Span]],
    build: Callable[[list[list[Span]]], list[Run]],
    key: str = "session.id",
) -> list[Run]:
    """A Run per session: each trace built (by ``build``) as a run, in the order the
    traces started, and the runs of the traces whose spans carry the same ``key``
    attribute joined as one conversation (:func:`judgekit.importers.sessions.session_runs`),
    its id the session's; a trace that names no session is a run of its own."""
    keyed: list[tuple[str | None, Run]] = []
    for trace in sorted(traces, key=lambda spans: min(span.start_ns for span in spans)):
        session = next((string_attribute(s, key) for s in trace if s.attributes.get(key)), None)
        keyed += [(session, run) for run in build([trace])]
    return list(session_runs(keyed, "session_id"))


def _run(
    spans: list[Span],
    index: int,
    split: bool,
    read_span: Callable[[Span, SpanRun], None],
    task_id: str | None,
) -> Run:
    ids = {span.span_id for span in spans}
    root = next((span for span in spans if span.parent_id not in ids), spans[0])
    run_id = f"{root.trace_id}/{root.span_id}" if split else root.trace_id
    carried: dict[str, Any] = {"run_id": run_id}
    timed = [span for span in spans if span.end_ns >= span.start_ns > 0]
    if timed:  # from the first span's start to the last one's end
        first = min(span.start_ns for span in timed)
        carried["duration_s"] = (max(span.end_ns for span in timed) - first) / NS_PER_S
    if root.error is not None:
        carried["stop_reason"] = "error"
    # The root span's id joins what a platform says of it (a Phoenix span annotation).
    metadata: dict[str, Any] = {"trace_id": root.trace_id, "root_span_id": root.span_id}
    conversation = Conversation(root.where, index, [], root.where, carried, metadata)
    run = SpanRun(RunDraft(conversation), root=root)
    for span in spans:
        read_span(span, run)
    return _finish(run, task_id or file_stem(root.where.path))


def _finish(run: SpanRun, task_id: str) -> Run:
    draft = run.draft
    calls = run.executed_calls or run.model_calls
    if not run.executed_calls:
        for call in calls:
            if call.id is not None and call.id in run.model_results:
                call.result, call.error = run.model_results[call.id]
    draft.tool_calls = calls
    if draft.input is None:
        draft.input = run.agent_input
    if draft.final_answer is None and run.agent_answer is not None:
        draft.add_assistant_message(run.agent_answer)
    if run.root_answer is not None and run.root_answer != draft.final_answer:
        draft.add_assistant_message(run.root_answer)
    if run.agent_usage is not None and not run.model_usage_seen:
        draft.add_usage(*run.agent_usage)  # the agent's total, when no model call has one
    draft.turns = run.model_turns
    return draft.finish(default_task_id=task_id)
