"""Runs of whole conversations: the runs of one session's traces joined into one run.

An importer asked ``--group-by session`` builds each trace's run as usual, in the order the
traces started, and :func:`session_runs` joins those of one session: its id the session's,
every trace's user message and answers kept in order in ``messages`` (each placed after the
tool calls made before it), the tool calls in order, turns, tokens, cost and time summed.
A trace of no session stays a run of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from judgekit.formats.conversation import conversation_steps
from judgekit.formats.run import Message, Run, ToolCall, Usage

__all__ = ["SESSION", "join_session", "session_runs"]

# What ``--group-by`` names a conversation of traces; ``thread`` is the older name.
SESSION = "session"

_N = TypeVar("_N", int, float)


def session_runs(runs: Iterable[tuple[str | None, Run]], id_key: str) -> Iterator[Run]:
    """One run per session of ``runs`` (``(session id or None, run)`` in start order), in
    the order each session began; the joined run's ``metadata[id_key]`` is the session id.
    """
    sessions: dict[tuple[bool, str], list[Run]] = {}
    for session, run in runs:
        key = (True, session) if session is not None else (False, run.run_id)
        sessions.setdefault(key, []).append(run)
    for (named, session), group in sessions.items():
        if named:
            yield join_session(session, group, id_key)
        else:
            yield from group


def join_session(session: str, runs: list[Run], id_key: str) -> Run:
    """The runs of one session's traces (in the order they started) as one run.

    >>> first = Run(run_id="t1", input="Cancel order 7?", final_answer="Cancel it?")
    >>> second = Run(run_id="t2", input="Yes", final_answer="Cancelled.",
    ...              tool_calls=[ToolCall(name="cancel", args={"id": 7})])
    >>> run = join_session("s", [first, second], "session_id")
    >>> for message in run.messages:
    ...     print(message.role, message.content, message.after_tool_calls)
    user Cancel order 7? 0
    assistant Cancel it? 0
    user Yes 0
    assistant Cancelled. 1
    """
    messages: list[Message] = []
    calls: list[ToolCall] = []
    for run in runs:
        for step in conversation_steps(run):
            if step.call is not None:
                calls.append(step.call)
            elif step.message is not None:
                messages.append(step.message.model_copy(update={"after_tool_calls": len(calls)}))
    first, last = runs[0], runs[-1]
    ended = next((run for run in reversed(runs) if not run.completed), None)
    per_trace = ("trace_id", "root_span_id", "error")
    metadata = {k: v for k, v in first.metadata.items() if k not in per_trace}
    metadata |= {id_key: session, "trace_ids": [_trace_id(run) for run in runs]}
    roots = [run.metadata["root_span_id"] for run in runs if "root_span_id" in run.metadata]
    if roots:  # what a platform's labels of a trace's root span are joined by
        metadata["root_span_ids"] = roots
    if ended is not None and "error" in ended.metadata:
        metadata["error"] = ended.metadata["error"]
    fields: dict[str, Any] = {
        **first.model_dump(include={"task_id", "trial", "reference", "initial_state"}),
        "run_id": session,
        "input": first.input,
        "tool_calls": calls,
        "final_answer": last.final_answer,  # the conversation's last word, or none
        "messages_to_user": [m.content for m in messages if m.role == "assistant"],
        "messages": messages,
        "turns": _total(run.turns for run in runs),
        "usage": _usage(runs),
        "cost_usd": _total(run.cost_usd for run in runs),
        "duration_s": _total(run.duration_s for run in runs),
        "stop_reason": ended.stop_reason if ended is not None else last.stop_reason,
        "final_state": last.final_state,
        "violations": [v for run in runs for v in run.violations],
        "metadata": metadata,
    }
    return Run.model_validate(fields)


def _trace_id(run: Run) -> str:
    trace = run.metadata.get("trace_id")
    return trace if isinstance(trace, str) else run.run_id


def _total(values: Iterable[_N | None]) -> _N | None:
    """The sum of the values given, None when none is."""
    given = [value for value in values if value is not None]
    return sum(given[1:], given[0]) if given else None


def _usage(runs: list[Run]) -> Usage | None:
    counted = [run.usage.model_dump() for run in runs if run.usage is not None]
    if not counted:
        return None
    totals: dict[str, Any] = {}
    for usage in counted:
        for name, count in usage.items():
            if isinstance(count, int) and not isinstance(count, bool):
                totals[name] = totals.get(name, 0) + count
    return Usage.model_validate(totals)
