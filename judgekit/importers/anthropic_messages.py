"""Runs from Anthropic Messages transcripts.

Assistant messages hold ``tool_use`` blocks (``input`` is an object); the next user message
answers them with ``tool_result`` blocks naming the call by ``tool_use_id`` and flagging
failures with ``is_error``. A conversation's ``system`` prompt is part of the format and is
not copied into the Run.

Server tools run by Anthropic (``web_search``, ``web_fetch``, ``code_execution``,
``bash_code_execution``, ...) come as a ``server_tool_use`` block (MCP connector tools as
``mcp_tool_use``) answered in the same assistant message by a ``*_tool_result`` block
(``web_search_tool_result``, ``code_execution_tool_result``, ...) of the same
``tool_use_id``: they are tool calls with ``executed_by="provider"``, their ``input`` as
arguments and the result block's ``content`` as the result, kept as the API gives it. A
content object whose ``type`` ends in ``_error`` (``web_search_tool_result_error``, ...)
makes the call an error, its ``error_code`` the message.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgekit.formats.run import ExecutedBy, Run
from judgekit.importers.conversations import Conversation, Message, content_text, iter_conversations
from judgekit.importers.locations import Location, optional_flag, optional_string, required_string
from judgekit.importers.run_draft import (
    RunDraft,
    error_message,
    id_key,
    new_tool_call,
    parse_result,
)
from judgekit.importers.unique_ids import UniqueRunIds

# The Messages API has no system role; logs that keep the system prompt as a message are
# read all the same, and the message is skipped.
ANTHROPIC_ROLES = ("user", "assistant", "system")
FORMAT_KEYS = frozenset({"system"})
# Who runs the tool a block calls: the agent (tool_use), or Anthropic on its servers.
_CALL_BLOCKS: dict[str, ExecutedBy] = {
    "tool_use": "agent",
    "server_tool_use": "provider",
    "mcp_tool_use": "provider",
}


def import_anthropic(
    path: str | Path, *, task_id: str | None = None, run_ids: UniqueRunIds | None = None
) -> Iterator[Run]:
    """Stream the runs of an Anthropic Messages transcript file.

    The file holds one conversation, a JSON list of them, or one per line (JSONL), plain or
    gzipped (see :mod:`judgekit.importers.conversations`). A ``tool_result`` with
    ``"is_error": true`` sets its call's ``error`` to the result text. ``task_id`` is used
    for conversations that carry none (default: the file's stem). A run id seen before in
    the file is made unique (``#2``, ``#3``, ...; pass ``run_ids`` to learn which, see
    :mod:`judgekit.importers.unique_ids`)::

        for run in import_anthropic("claude-runs.jsonl", task_id="refund_full"):
            print(run.run_id, [call.name for call in run.tool_calls])

    A malformed file raises :class:`judgekit.errors.DataError` naming the file, the line
    and the field.
    """
    conversations = iter_conversations(path, ignored_keys=FORMAT_KEYS)
    runs = (_run(conversation, task_id) for conversation in conversations)
    return (run_ids if run_ids is not None else UniqueRunIds()).apply(runs)


def _run(conversation: Conversation, task_id: str | None) -> Run:
    draft = RunDraft(conversation)
    for message in conversation.iter_messages(ANTHROPIC_ROLES):
        text = message.text()
        if message.role == "user":
            draft.add_user_text(text)
        elif message.role == "assistant":
            draft.add_assistant_message(text)
            if message.data.get("usage") is not None:
                draft.add_usage(message.data["usage"], message.where.key("usage"))
        for block, where in _blocks(message):
            kind = block["type"]
            if kind in _CALL_BLOCKS:
                _read_tool_use(block, where, draft)
            elif kind == "tool_result":
                _read_tool_result(block, where, draft)
            elif kind.endswith("_tool_result"):
                _read_server_tool_result(block, where, draft)
    return draft.finish(default_task_id=task_id)


def _blocks(message: Message) -> Iterator[tuple[dict[str, Any], Location]]:
    # message.text() has already checked that every block is an object with a string type.
    content = message.data.get("content")
    if isinstance(content, list):
        where = message.where.key("content")
        for number, block in enumerate(content):
            yield block, where.item(number)


def _read_tool_use(block: dict[str, Any], where: Location, draft: RunDraft) -> None:
    call_id = optional_string(block, "id", where)
    call = new_tool_call(required_string(block, "name", where), block.get("input"), call_id)
    call.executed_by = _CALL_BLOCKS[block["type"]]
    draft.add_call(call, id_key(call_id))


def _read_tool_result(block: dict[str, Any], where: Location, draft: RunDraft) -> None:
    call_id = optional_string(block, "tool_use_id", where)
    text = content_text(block.get("content"), where.key("content"))
    failed = optional_flag(block, "is_error", where)
    error = error_message(text) if failed else None
    draft.add_result(id_key(call_id), parse_result(text), error)


def _read_server_tool_result(block: dict[str, Any], where: Location, draft: RunDraft) -> None:
    """A server tool's result: its ``content`` as given (search results, code output), or
    an error object; an MCP result has text content and ``is_error`` like a tool_result."""
    call_id = optional_string(block, "tool_use_id", where)
    content = block.get("content")
    if block["type"] == "mcp_tool_result":
        text = content_text(content, where.key("content"))
        failed = optional_flag(block, "is_error", where)
        draft.add_result(
            id_key(call_id), parse_result(text), error_message(text) if failed else None
        )
        return
    error = None
    if isinstance(content, dict) and str(content.get("type")).endswith("_error"):
        code = content.get("error_code")
        error = error_message(str(code) if code is not None else None)
    draft.add_result(id_key(call_id), content, error)
