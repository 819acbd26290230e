"""Runs built from conversations: tool calls paired with their results, usage summed.

The format-specific importers walk a conversation's messages and feed a :class:`RunDraft`,
which pairs tool results with tool calls, sums token usage and builds the validated
:class:`Run`. The helpers here turn what a transcript sent into Run fields: tool call
arguments, result values, error texts and token counts.
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judgekit._util.jsonl import parse_json, validation_error_to_data_error
from judgekit.formats.run import Run, ToolCall, Usage
from judgekit.importers.conversations import Conversation, has_text
from judgekit.importers.locations import Location, as_object, describe_json

MAX_ERROR_CHARS = 500
NO_ERROR_TEXT = "the tool reported an error"

# What pairs a result with its call: ("id", call id), or ("function", name) for the legacy
# OpenAI function role, whose messages carry no id.
PairingKey = tuple[str, str]


# --- Tool calls, results and usage as Run fields ---------------------------------------


def new_tool_call(name: str, arguments: Any, call_id: str | None) -> ToolCall:
    """A ToolCall from its arguments as sent: a JSON string, an object, or nothing.

    Arguments that are not a JSON object keep the call, flagged: ``args`` is empty,
    ``raw_arguments`` holds exactly what was sent and ``arguments_error`` says why. An empty
    string means no arguments (some servers send it for tools without parameters).

    >>> call = new_tool_call("book", '{"flight": "AA1"', "call_1")
    >>> call.args, call.raw_arguments, call.arguments_error
    ({}, '{"flight": "AA1"', "not valid JSON: Expecting ',' delimiter: line 1 column 17 (char 16)")
    """
    args, raw, problem = _parse_arguments(arguments)
    return ToolCall(name=name, args=args, id=call_id, raw_arguments=raw, arguments_error=problem)


def _parse_arguments(arguments: Any) -> tuple[dict[str, Any], str | None, str | None]:
    if isinstance(arguments, dict):
        return arguments, None, None
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}, None, None
    if not isinstance(arguments, str):
        return {}, json.dumps(arguments), f"arguments are {_json_kind(arguments)}, not an object"
    try:
        parsed = parse_json(arguments)
    except json.JSONDecodeError as exc:
        return {}, arguments, f"not valid JSON: {exc}"
    if not isinstance(parsed, dict):
        return {}, arguments, f"arguments are {_json_kind(parsed)}, not an object"
    return parsed, None, None


def _json_kind(value: Any) -> str:
    if value is None:
        return "JSON null"
    if isinstance(value, bool):
        return "a JSON boolean"
    if isinstance(value, int | float):
        return "a JSON number"
    return "a JSON string" if isinstance(value, str) else "a JSON list"


def parse_result(text: str | None) -> Any:
    """A tool result's value: the parsed JSON when the text is a JSON object or list, else the text.

    >>> parse_result('{"ok": true}'), parse_result("255.0"), parse_result("Error: no seats")
    ({'ok': True}, '255.0', 'Error: no seats')
    """
    if text is None or not text.lstrip().startswith(("{", "[")):
        return text
    try:
        return parse_json(text)  # text starting with { or [ parses to an object or a list
    except json.JSONDecodeError:
        return text


def error_message(text: str | None) -> str:
    """A failed call's ``error``: the tool's text cut to 500 characters, never empty."""
    return text[:MAX_ERROR_CHARS] if text is not None and text.strip() else NO_ERROR_TEXT


_TOKEN_ALIASES = {
    "input_tokens": ("input_tokens", "prompt_tokens"),
    "output_tokens": ("output_tokens", "completion_tokens"),
}


def usage_counts(raw: Any, where: Location) -> dict[str, int]:
    """The token counts of one usage object, under judgekit's names.

    OpenAI's ``prompt_tokens`` and ``completion_tokens`` become ``input_tokens`` and
    ``output_tokens``; other whole-number counters (cache tokens) keep their names; nested
    details are skipped.

    >>> usage_counts({"prompt_tokens": 9, "completion_tokens": 3, "prompt_tokens_details": {}},
    ...              Location(Path("chat.json")))
    {'input_tokens': 9, 'output_tokens': 3}
    """
    usage = as_object(raw, where, "a usage object with `input_tokens` and `output_tokens`")
    counts: dict[str, int] = {}
    for name, aliases in _TOKEN_ALIASES.items():
        present = next((alias for alias in aliases if usage.get(alias) is not None), None)
        if present is not None:
            counts[name] = _token_count(usage[present], where.key(present))
    known = {alias for aliases in _TOKEN_ALIASES.values() for alias in aliases}
    for key, value in usage.items():
        if key not in known and isinstance(value, int) and not isinstance(value, bool):
            counts[key] = value
    return counts


def _token_count(value: Any, where: Location) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise where.error(f"expected a whole number of tokens, got {describe_json(value)}")


# --- Assembling a Run ----------------------------------------------------------------------


class RunDraft:
    """A Run being assembled from one conversation, message by message.

    A result is paired with the earliest unanswered call of the same key (the tool call id),
    because ids repeat within a run (τ-bench reuses them). A result that answers no call is
    counted in ``metadata["unmatched_tool_results"]``, never an error.

    >>> where = Location(Path("chat.json"))
    >>> draft = RunDraft(Conversation(where, 0, [], where))
    >>> for name in ("search", "book"):
    ...     draft.add_call(new_tool_call(name, "{}", "call_1"), ("id", "call_1"))
    >>> draft.add_result(("id", "call_1"), "found", None)
    >>> draft.add_result(("id", "call_1"), "booked", None)
    >>> [(call.name, call.result) for call in draft.finish(default_task_id=None).tool_calls]
    [('search', 'found'), ('book', 'booked')]
    """

    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation
        self.tool_calls: list[ToolCall] = []
        self.input: str | None = None
        self.final_answer: str | None = None
        self.messages_to_user: list[str] = []
        self.turns = 0
        self._usage: dict[str, int] | None = None
        self._unanswered: dict[PairingKey, deque[ToolCall]] = {}
        self._unmatched_results = 0
        record_usage = conversation.carried.get("usage")
        if record_usage is not None:
            self.add_usage(record_usage, conversation.where.key("usage"))

    def add_user_text(self, text: str | None) -> None:
        if self.input is None and has_text(text):
            self.input = text

    def add_assistant_message(self, text: str | None) -> None:
        self.turns += 1
        if text is not None and has_text(text):
            self.final_answer = text
            self.messages_to_user.append(text)  # as sent: expect_answer reads every one

    def add_call(self, call: ToolCall, key: PairingKey | None) -> None:
        """Record a call; ``key`` (None when the call has no id) lets a result find it."""
        self.tool_calls.append(call)
        if key is not None:
            self._unanswered.setdefault(key, deque()).append(call)

    def add_result(self, key: PairingKey | None, result: Any, error: str | None) -> None:
        waiting = self._unanswered.get(key) if key is not None else None
        if not waiting:
            self._unmatched_results += 1
            return
        call = waiting.popleft()
        call.result = result
        call.error = error

    def add_usage(self, raw: Any, where: Location) -> None:
        totals = self._usage if self._usage is not None else {}
        for name, count in usage_counts(raw, where).items():
            totals[name] = totals.get(name, 0) + count
        self._usage = totals

    def finish(self, *, default_task_id: str | None) -> Run:
        """The validated Run; a record field of the wrong type is a DataError."""
        conversation = self.conversation
        stem = file_stem(conversation.path)
        given = {key: value for key, value in conversation.carried.items() if value is not None}
        metadata = dict(conversation.metadata)
        if self._unmatched_results:
            metadata["unmatched_tool_results"] = self._unmatched_results
        fields: dict[str, Any] = {
            "input": self.input,
            **given,
            "run_id": _identifier(given.get("run_id")) or f"{stem}/{conversation.index}",
            "task_id": _identifier(given.get("task_id")) or default_task_id or stem,
            "tool_calls": self.tool_calls,
            "final_answer": self.final_answer,
            "messages_to_user": self.messages_to_user,
            "turns": self.turns,
            "usage": Usage.model_validate(self._usage) if self._usage is not None else None,
            "metadata": metadata,
        }
        try:
            return Run.model_validate(fields)
        except ValidationError as exc:
            problem = validation_error_to_data_error(exc, path=None, line=None)
            where = conversation.where
            raise (where.key(problem.field) if problem.field else where).error(
                problem.message
            ) from None


def id_key(call_id: str | None) -> PairingKey | None:
    """The pairing key of a call or result id; None (never paired) when there is no id."""
    return ("id", call_id) if call_id is not None else None


def _identifier(value: Any) -> Any:
    # τ-bench numbers its tasks; ids are strings in a Run.
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def file_stem(path: Path) -> str:
    """The file name without ``.gz`` and its format extension.

    >>> file_stem(Path("logs/gpt-4o-airline.json.gz"))
    'gpt-4o-airline'
    """
    name = path.name.removesuffix(".gz")
    return Path(name).stem or name
