"""The tool calls a Langfuse trace's generations asked for, for an agent that traced none of
its tools (only its model calls, with the langfuse OpenAI integration, say).

A generation's output holds the calls the model asked for (OpenAI's ``tool_calls``); a later
generation's input holds each result as the ``tool`` message answering the call's id.
"""

from __future__ import annotations

from typing import Any

from judgekit.formats.run import ToolCall
from judgekit.importers.run_draft import new_tool_call, parse_result
from judgekit.importers.trace_records import Record

__all__ = ["requested_calls", "requested_tools"]


def requested_calls(generations: list[Record]) -> list[ToolCall]:
    """Each call the generations asked for, in order, its result when a later one was sent it."""
    results = _results(generations)
    calls = []
    for record in generations:
        for request in _requests(record.data.get("output")):
            function, call_id = request["function"], request.get("id")
            call = new_tool_call(function["name"], function.get("arguments"), _text(call_id))
            if isinstance(call_id, str) and call_id in results:
                call.result = parse_result(results[call_id])
            calls.append(call)
    return calls


def _requests(output: Any) -> list[dict[str, Any]]:
    calls = output.get("tool_calls") if isinstance(output, dict) else None
    return [
        call
        for call in calls or ()
        if isinstance(call, dict)
        and isinstance(call.get("function"), dict)
        and isinstance(call["function"].get("name"), str)
    ]


def _results(generations: list[Record]) -> dict[str, str]:
    """The text of each ``tool`` message the generations were sent, by the call's id."""
    found: dict[str, str] = {}
    for record in generations:
        sent = record.data.get("input")
        messages = sent.get("messages") if isinstance(sent, dict) else sent
        for message in messages if isinstance(messages, list) else ():
            if (
                isinstance(message, dict)
                and message.get("role") == "tool"
                and isinstance(message.get("tool_call_id"), str)
                and isinstance(message.get("content"), str)
            ):
                found.setdefault(message["tool_call_id"], message["content"])
    return found


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def requested_tools(generations: list[Record]) -> set[str]:
    """The names of the tools the generations asked for (a SPAN so named is a tool call)."""
    names: set[str] = set()
    for record in generations:
        _collect_tool_names(record.data.get("output"), names)
    return names


def _collect_tool_names(value: Any, names: set[str]) -> None:
    # OpenAI's tool_calls ({"function": {"name"}}), Anthropic's tool_use and the Responses
    # API's function_call items, wherever they sit in a generation's output.
    if isinstance(value, dict):
        function = value.get("function")
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.add(function["name"])
        if value.get("type") in ("tool_use", "function_call") and isinstance(
            value.get("name"), str
        ):
            names.add(value["name"])
        for item in value.values():
            _collect_tool_names(item, names)
    elif isinstance(value, list):
        for item in value:
            _collect_tool_names(item, names)
