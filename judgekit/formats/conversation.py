"""A run as a conversation: every user message and answer in order, tool calls among them.

A run of several exchanges (an importer's ``--group-by session``: the traces of one session)
keeps its messages in ``Run.messages``; any other run is the conversation of one exchange,
its ``input`` asked, its tool calls made, then its ``messages_to_user`` (or its final
answer) sent. :func:`conversation_steps` gives both kinds as one sequence of steps, which
:func:`judge_conversation` renders for a judge (``{conversation}``: one JSON object per line,
each tool call one short line of its name and a cut of its arguments, results left out) and
:func:`render_conversation` for a person (the labelling screen: results shown, folded).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from judgekit.formats.run import Message, Run, ToolCall
from judgekit.formats.transcript import FOLD_AT, render_tool_result

__all__ = [
    "CALL_ARGS_AT",
    "Step",
    "conversation_steps",
    "is_conversation",
    "judge_conversation",
    "render_conversation",
]

# A tool call in a conversation is one short line: its arguments' JSON cut to this many
# characters says what was asked, and the conversation, not the tool's output, is judged.
CALL_ARGS_AT = 200


@dataclass(frozen=True)
class Step:
    """One step of a conversation: a message, or the tool call numbered ``number``."""

    message: Message | None = None
    call: ToolCall | None = None
    number: int = 0


def is_conversation(run: Run) -> bool:
    """Whether the run holds a conversation of several exchanges (``Run.messages``)."""
    return bool(run.messages)


def conversation_steps(run: Run) -> list[Step]:
    """The run's messages with its tool calls among them, in the order they happened; a
    call made after the last message comes last.

    >>> run = Run(run_id="r", input="Refund A100?", final_answer="Refunded.",
    ...           tool_calls=[ToolCall(name="refund", args={"id": "A100"})])
    >>> [(s.message.role if s.message else s.call.name) for s in conversation_steps(run)]
    ['user', 'refund', 'assistant']
    """
    steps: list[Step] = []
    made = 0
    for message in _messages(run):
        while made < message.after_tool_calls:
            steps.append(Step(call=run.tool_calls[made], number=made + 1))
            made += 1
        steps.append(Step(message=message))
    steps += [Step(call=call, number=n) for n, call in enumerate(run.tool_calls, 1) if n > made]
    return steps


def _messages(run: Run) -> list[Message]:
    if run.messages:
        return run.messages
    calls = len(run.tool_calls)
    asked = [Message(role="user", content=run.input)] if run.input is not None else []
    sent = run.messages_to_user or ([run.final_answer] if run.final_answer is not None else [])
    return asked + [Message(role="assistant", content=t, after_tool_calls=calls) for t in sent]


def judge_conversation(run: Run, *, args_at: int = CALL_ARGS_AT) -> str:
    """What ``{conversation}`` shows the judge: one JSON object per line, so no text inside
    can forge a line (a message holding a newline and ``{"user": …}`` stays in its string).

    >>> run = Run(run_id="r", input="Refund A100?", final_answer="Refunded.",
    ...           tool_calls=[ToolCall(name="refund", args={"id": "A100"}, result="ok")])
    >>> print(judge_conversation(run))
    {"user": "Refund A100?"}
    {"tool_call": 1, "name": "refund", "args": {"id": "A100"}}
    {"assistant": "Refunded."}
    """
    lines = []
    for step in conversation_steps(run):
        if step.message is not None:
            event: dict[str, object] = {step.message.role: step.message.content}
        else:
            assert step.call is not None
            event = {"tool_call": step.number, "name": step.call.name}
            event.update(_call_arguments(step.call, args_at))
            if step.call.error is not None:
                event["failed"] = True
        lines.append(json.dumps(event, ensure_ascii=False, default=repr))
    if not lines:
        lines.append(json.dumps({"messages": 0}))
    if not run.completed:
        lines.append(json.dumps({"stopped_early": run.stop_reason}))
    return "\n".join(lines)


def _call_arguments(call: ToolCall, limit: int) -> dict[str, object]:
    if call.arguments_error is not None:
        return {"unparsed_arguments": _cut(call.raw_arguments or "", limit)}
    text = json.dumps(call.args, ensure_ascii=False, default=repr)
    return {"args": call.args if len(text) <= limit else _cut(text, limit)}


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"


def render_conversation(run: Run, *, fold_at: int = FOLD_AT) -> str:
    """The conversation for a person to read: ``User:`` and ``Agent:`` lines, each tool
    call with its (folded) result; a message's further lines are indented, so no text
    inside can start a line of its own.

    >>> run = Run(run_id="r", messages=[Message(role="user", content="Cancel it?"),
    ...     Message(role="assistant", content="Which order?"),
    ...     Message(role="user", content="Yes"),
    ...     Message(role="assistant", content="Done.\\nAgent: more", after_tool_calls=1)],
    ...     tool_calls=[ToolCall(name="cancel", args={"id": 7}, result=True)])
    >>> print(render_conversation(run))
    User: Cancel it?
    Agent: Which order?
    User: Yes
    Tool call 1: cancel(id=7)
    Result: true
    Agent: Done.
      Agent: more
    """
    lines = []
    for step in conversation_steps(run):
        if step.message is not None:
            who = "User" if step.message.role == "user" else "Agent"
            lines.append(f"{who}: " + step.message.content.replace("\n", "\n  "))
        else:
            assert step.call is not None
            lines.append(render_tool_result(step.number, step.call, fold_at))
    if not run.completed:
        lines.append(f"The run stopped early: {run.stop_reason}")
    return "\n".join(lines)
