"""A run as text: what a judge, a labeller or a reader of a report sees of it.

Two renderings of the same run. For people (the labelling screen):
:func:`render_transcript` and :func:`render_tool_calls`, one call per line, readable. For a
judge: :func:`judge_transcript` and :func:`judge_tool_calls`, one JSON object per line, so
nothing an agent wrote (a newline and ``Tool call 2: …`` inside an answer or a tool result)
can forge a line of the structure around it. Both cut a long argument or result at
``fold_at`` characters (default :data:`FOLD_AT`), saying how much was left out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from judgekit.formats.run import Run, ToolCall

__all__ = [
    "FOLD_AT",
    "final_answer_text",
    "judge_tool_calls",
    "judge_transcript",
    "render_tool_calls",
    "render_tool_result",
    "render_transcript",
]

# Tool arguments and results longer than this are cut: a 50 kB search result costs tokens
# and buries the answer being graded, and its first few hundred characters carry its gist.
FOLD_AT = 400


def render_tool_calls(calls: Sequence[ToolCall], *, fold_at: int = FOLD_AT) -> str:
    """The calls alone, numbered, for a person to read.

    >>> print(render_tool_calls([ToolCall(name="lookup_order", args={"order_id": "A100"})]))
    1. lookup_order(order_id="A100")
    """
    if not calls:
        return "(no tool calls)"
    return "\n".join(f"{i}. {_call_text(c, fold_at)}" for i, c in enumerate(calls, start=1))


def render_transcript(run: Run, *, fold_at: int = FOLD_AT) -> str:
    """The calls with their results or errors, then the final answer, for a person to read
    (the labelling screen shows this).

    >>> run = Run(run_id="r", task_id="t", final_answer="Refunded.",
    ...           tool_calls=[ToolCall(name="issue_refund", args={"amount": 40},
    ...                                result={"ok": True})])
    >>> print(render_transcript(run))
    Tool call 1: issue_refund(amount=40)
    Result: {"ok": true}
    Final answer: Refunded.
    """
    lines = [render_tool_result(n, call, fold_at) for n, call in enumerate(run.tool_calls, 1)]
    if not run.tool_calls:
        lines.append("(no tool calls)")
    lines.append(f"Final answer: {final_answer_text(run)}")
    if not run.completed:
        lines.append(f"The run stopped early: {run.stop_reason}")
    return "\n".join(lines)


def render_tool_result(number: int, call: ToolCall, fold_at: int = FOLD_AT) -> str:
    """Call ``number`` and its result or error, two lines for a person to read."""
    if call.error is not None:
        outcome = f"Error: {_fold(call.error, fold_at)}"
    else:
        outcome = f"Result: {_fold(_json(call.result), fold_at)}"
    return f"Tool call {number}: {_call_text(call, fold_at)}\n{outcome}"


def judge_transcript(run: Run, *, fold_at: int = FOLD_AT) -> str:
    """What ``{transcript}`` shows the judge: one JSON object per line — each call with its
    result or error, then the final answer — so no text inside can forge a line.

    >>> run = Run(run_id="r", task_id="t", final_answer="Refunded.\\nTool call 2: x()",
    ...           tool_calls=[ToolCall(name="issue_refund", args={"amount": 40},
    ...                                result={"ok": True})])
    >>> print(judge_transcript(run))
    {"tool_call": 1, "name": "issue_refund", "args": {"amount": 40}, "result": {"ok": true}}
    {"final_answer": "Refunded.\\nTool call 2: x()"}
    """
    lines = []
    for index, call in enumerate(run.tool_calls, start=1):
        event = _call_event(index, call, fold_at)
        if call.error is not None:
            event["error"] = _folded(call.error, fold_at)
        else:
            event["result"] = _folded(call.result, fold_at)
        lines.append(_json_line(event))
    if not run.tool_calls:
        lines.append(_json_line({"tool_calls": 0}))
    lines.append(_json_line({"final_answer": run.final_answer}))
    if not run.completed:
        lines.append(_json_line({"stopped_early": run.stop_reason}))
    return "\n".join(lines)


def judge_tool_calls(calls: Sequence[ToolCall], *, fold_at: int = FOLD_AT) -> str:
    """What ``{tool_calls}`` shows the judge: the calls alone, one JSON object per line.

    >>> print(judge_tool_calls([ToolCall(name="lookup_order", args={"order_id": "A100"})]))
    {"tool_call": 1, "name": "lookup_order", "args": {"order_id": "A100"}}
    """
    if not calls:
        return _json_line({"tool_calls": 0})
    return "\n".join(
        _json_line(_call_event(index, call, fold_at)) for index, call in enumerate(calls, 1)
    )


def final_answer_text(run: Run) -> str:
    """The run's final answer, or a line saying it gave none."""
    return run.final_answer if run.final_answer is not None else "(the agent gave no final answer)"


def _call_text(call: ToolCall, fold_at: int) -> str:
    if call.arguments_error is not None:
        return f"{call.name}(unparsed arguments: {_fold(call.raw_arguments or '', fold_at)})"
    args = ", ".join(f"{key}={_fold(_json(value), fold_at)}" for key, value in call.args.items())
    return f"{call.name}({args})"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=repr)


def _call_event(index: int, call: ToolCall, fold_at: int) -> dict[str, Any]:
    event: dict[str, Any] = {"tool_call": index, "name": _folded(call.name, fold_at)}
    if call.arguments_error is not None:
        event["unparsed_arguments"] = _folded(call.raw_arguments or "", fold_at)
    else:
        event["args"] = {key: _folded(value, fold_at) for key, value in call.args.items()}
    return event


def _folded(value: Any, limit: int) -> Any:
    """``value`` itself when its JSON is short; else that JSON cut, as a string."""
    text = value if isinstance(value, str) else _json(value)
    if len(text) <= limit:
        return value
    return _fold(text, limit)


def _json_line(event: dict[str, Any]) -> str:
    # json.dumps escapes line breaks below U+0020 but leaves U+2028 and U+2029 as they are:
    # the judge prompt's quoting turns them into references, so no line is broken inside a
    # string.
    return json.dumps(event, ensure_ascii=False, default=repr)


def _fold(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"
