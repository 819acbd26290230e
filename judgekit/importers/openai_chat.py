"""Runs from OpenAI Chat Completions transcripts (τ-bench's trajectories among them).

Assistant messages carry ``tool_calls`` whose ``arguments`` are JSON strings; ``tool``
messages carry the results, each naming its call by ``tool_call_id``. The legacy
``function_call`` / ``function`` role pair is read too, paired by function name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from judgekit.errors import ConfigError
from judgekit.formats.run import Run
from judgekit.importers.conversations import Conversation, Message, iter_conversations
from judgekit.importers.locations import (
    as_object,
    describe_json,
    optional_flag,
    optional_string,
    required_string,
)
from judgekit.importers.run_draft import (
    PairingKey,
    RunDraft,
    error_message,
    id_key,
    new_tool_call,
    parse_result,
)
from judgekit.importers.unique_ids import UniqueRunIds

# Chat Completions has no error flag on tool results. τ-bench's tools answer a refusal with
# a text starting "Error"; this pattern agrees with τ-bench's own flags on all 1,164 calls
# of the gpt-4o airline runs.
DEFAULT_ERROR_PATTERN = r"^\s*Error\b"
OPENAI_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def import_openai(
    path: str | Path,
    *,
    task_id: str | None = None,
    error_pattern: str | None = DEFAULT_ERROR_PATTERN,
    run_ids: UniqueRunIds | None = None,
) -> Iterator[Run]:
    """Stream the runs of an OpenAI Chat Completions transcript file.

    The file holds one conversation, a JSON list of them, or one per line (JSONL), plain or
    gzipped (see :mod:`judgekit.importers.conversations`). A tool result is an error when
    its message says so (``"is_error": true`` or an ``"error"`` key), else when
    ``error_pattern`` is found in its text (``re.search``; None turns the guess off).
    ``task_id`` is used for conversations that carry none (default: the file's stem). A run
    id seen before in the file is made unique (``#2``, ``#3``, ...; pass ``run_ids`` to learn
    which, see :mod:`judgekit.importers.unique_ids`)::

        for run in import_openai("gpt-4o-airline.json.gz"):
            print(run.run_id, run.task_id, len(run.tool_calls))

    A malformed file raises :class:`judgekit.errors.DataError` naming the file, the line
    and the field; an invalid ``error_pattern`` raises :class:`judgekit.errors.ConfigError`
    at once.
    """
    pattern = compile_error_pattern(error_pattern)
    runs = (_run(conversation, task_id, pattern) for conversation in iter_conversations(path))
    return (run_ids if run_ids is not None else UniqueRunIds()).apply(runs)


def compile_error_pattern(error_pattern: str | None) -> re.Pattern[str] | None:
    if error_pattern is None:
        return None
    try:
        return re.compile(error_pattern)
    except re.error as exc:
        raise ConfigError(
            f"error_pattern {error_pattern!r} is not a valid regular expression: {exc}"
        ) from None


def _run(conversation: Conversation, task_id: str | None, pattern: re.Pattern[str] | None) -> Run:
    draft = RunDraft(conversation)
    for message in conversation.iter_messages(OPENAI_ROLES):
        if message.role == "user":
            draft.add_user_text(message.text())
        elif message.role == "assistant":
            _read_assistant(message, draft)
        elif message.role in ("tool", "function"):
            _read_tool_result(message, draft, pattern)
    return draft.finish(default_task_id=task_id)


def _read_assistant(message: Message, draft: RunDraft) -> None:
    draft.add_assistant_message(message.text())
    if message.data.get("usage") is not None:
        draft.add_usage(message.data["usage"], message.where.key("usage"))
    calls_where = message.where.key("tool_calls")
    calls = message.data.get("tool_calls") or []
    if not isinstance(calls, list):
        raise calls_where.error(f"expected a list of tool calls, got {describe_json(calls)}")
    for number, entry in enumerate(calls):
        where = calls_where.item(number)
        call = as_object(entry, where, "a tool call object with `id` and `function`")
        kind = optional_string(call, "type", where)
        if kind not in (None, "function"):
            raise where.key("type").error(
                f"unsupported tool call type {kind!r}; expected 'function'"
            )
        function_where = where.key("function")
        function = as_object(
            call.get("function"), function_where, "an object with `name` and `arguments`"
        )
        call_id = optional_string(call, "id", where)
        name = required_string(function, "name", function_where)
        tool_call = new_tool_call(name, function.get("arguments"), call_id)
        draft.add_call(tool_call, id_key(call_id))
    if message.data.get("function_call") is not None:
        _read_legacy_function_call(message, draft)


def _read_legacy_function_call(message: Message, draft: RunDraft) -> None:
    where = message.where.key("function_call")
    function = as_object(
        message.data["function_call"], where, "an object with `name` and `arguments`"
    )
    name = required_string(function, "name", where)
    draft.add_call(new_tool_call(name, function.get("arguments"), None), ("function", name))


def _read_tool_result(message: Message, draft: RunDraft, pattern: re.Pattern[str] | None) -> None:
    text = message.text()
    key: PairingKey | None
    if message.role == "function":
        key = ("function", required_string(message.data, "name", message.where))
    else:
        key = id_key(optional_string(message.data, "tool_call_id", message.where))
    draft.add_result(key, parse_result(text), _tool_error(message, text, pattern))


def _tool_error(message: Message, text: str | None, pattern: re.Pattern[str] | None) -> str | None:
    stated = message.data.get("error")
    if stated:  # loggers write "error": null, false or "" for a call that went fine
        if isinstance(stated, str):
            return error_message(stated)
        return error_message(text if stated is True else json.dumps(stated))
    flagged = optional_flag(message.data, "is_error", message.where)
    if flagged is not None:
        return error_message(text) if flagged else None
    if pattern is not None and text is not None and pattern.search(text):
        return error_message(text)
    return None
