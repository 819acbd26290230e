"""LangChain messages as its tracers serialise them, for the importers of LangChain and
LangGraph traces (OpenInference spans, LangSmith runs).

A message comes in one of the shapes LangChain writes: ``{"lc": 1, "type": "constructor",
"id": [..., "AIMessage"], "kwargs": {...}}`` (``dumpd``), ``{"type": "ai", "data": {...}}``
(``messages_to_dict``), ``{"type": "ai", "content": ...}`` (a message's ``model_dump``), a
``("user", text)`` pair, or an OpenAI-style ``{"role": "user", "content": ...}``. A graph's
state holds its messages under ``messages``.

>>> state = {"messages": [["user", "Hi"], {"type": "ai", "content": "Hello!", "id": "m1"}]}
>>> first_human_text(state), last_ai_text(state)
('Hi', 'Hello!')
>>> exception_text("ValueError('no city')Traceback (most recent call last):\\n  File ...")
"ValueError('no city')"
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "ToolOutcome",
    "exception_text",
    "first_human_text",
    "last_ai_text",
    "tool_outcome",
]

_KINDS = {
    "ai": "ai",
    "assistant": "ai",
    "AIMessage": "ai",
    "AIMessageChunk": "ai",
    "human": "human",
    "user": "human",
    "HumanMessage": "human",
    "HumanMessageChunk": "human",
    "tool": "tool",
    "ToolMessage": "tool",
    "ToolMessageChunk": "tool",
}
# LangChain's tracers append the traceback to an error's repr.
_TRACEBACK = "Traceback (most recent call last):"


@dataclass(frozen=True)
class ToolOutcome:
    """What a ToolMessage says of the call it answers."""

    content: Any
    tool_call_id: str | None
    failed: bool


def _message(value: Any) -> tuple[str, dict[str, Any]] | None:
    """The message's kind (``ai``, ``human``, ``tool``) and fields, None when it is none."""
    if isinstance(value, list | tuple) and len(value) == 2 and isinstance(value[0], str):
        kind = _KINDS.get(value[0])
        return (kind, {"content": value[1]}) if kind is not None else None
    if not isinstance(value, dict):
        return None
    if value.get("lc") == 1 and isinstance(value.get("id"), list) and value["id"]:
        kwargs = value.get("kwargs")
        kind = _KINDS.get(str(value["id"][-1]))
        return (kind, kwargs) if kind is not None and isinstance(kwargs, dict) else None
    name = value.get("type", value.get("role"))
    kind = _KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        return None
    data = value.get("data")
    return kind, data if isinstance(data, dict) and "content" not in value else value


def _text(fields: dict[str, Any]) -> str | None:
    """A message's text: its content string, or its text blocks joined."""
    content = fields.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [
        block if isinstance(block, str) else block.get("text")
        for block in content
        if isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")
    ]
    return "".join(text for text in texts if isinstance(text, str))


def _messages(value: Any) -> list[tuple[str, dict[str, Any]]]:
    """The messages a traced value holds: a state's ``messages``, a list of messages (a
    batch of lists too, as a chat model's input), or one message."""
    if isinstance(value, dict) and "messages" in value and _message(value) is None:
        value = value["messages"]
    one = _message(value)
    if one is not None:
        return [one]
    if not isinstance(value, list):
        return []
    found: list[tuple[str, dict[str, Any]]] = []
    for item in value:
        message = _message(item)
        if message is not None:
            found.append(message)
        elif isinstance(item, list):
            found.extend(_messages(item))
    return found


def first_human_text(value: Any) -> str | None:
    """The text of the first human message ``value`` holds, None when it holds none."""
    for kind, fields in _messages(value):
        if kind == "human":
            return _text(fields)
    return None


def last_ai_text(value: Any) -> str | None:
    """The text of the last AI message ``value`` holds that has text, None when none has."""
    for kind, fields in reversed(_messages(value)):
        text = _text(fields) if kind == "ai" else None
        if text is not None and text.strip():
            return text
    return None


def tool_outcome(value: Any) -> ToolOutcome | None:
    """What the ToolMessage ``value`` (or ``{"output": ToolMessage}``) says, None when it is
    not a ToolMessage: its content, the id of the call it answers, whether it failed."""
    if isinstance(value, dict) and value.keys() == {"output"}:
        value = value["output"]
    message = _message(value)
    if message is None or message[0] != "tool":
        return None
    fields = message[1]
    call_id = fields.get("tool_call_id")
    return ToolOutcome(
        content=fields.get("content"),
        tool_call_id=call_id if isinstance(call_id, str) else None,
        failed=fields.get("status") == "error",
    )


def exception_text(error: str) -> str:
    """An error as LangChain's tracers record it, without the traceback they append."""
    head, marker, _ = error.partition(_TRACEBACK)
    return head.rstrip() if marker and head.strip() else error
