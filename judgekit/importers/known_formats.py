"""The importers that have their own commands (openai, anthropic, taubench, bfcl) as
registry entries, so a file of their kind given to another importer is recognised.

Their ``looks_like`` read a file's head: a conversation (a message list, or an object with
``messages`` / ``traj``), a list of conversations, or a BFCL result line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgekit.formats.run import Run
from judgekit.importers.interface import Importer, ImportOptions

__all__ = ["ANTHROPIC", "BFCL", "OPENAI", "TAUBENCH"]

_OPENAI_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
_ANTHROPIC_ROLES = frozenset({"system", "user", "assistant"})
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})
_OPENAI_MESSAGE_KEYS = frozenset({"tool_calls", "function_call", "tool_call_id"})


def first_record(head: object) -> object:
    """The first record of a head that is a JSON list of records, else the head itself."""
    if isinstance(head, list) and head and isinstance(head[0], dict | list):
        first: object = head[0]
        if isinstance(first, dict) and "role" in first:
            return head  # a bare message list: the conversation itself
        return first
    return head


def conversation_messages(head: object) -> list[dict[str, Any]] | None:
    """The messages of the head's first conversation, when it is one, else None."""
    record = first_record(head)
    messages = record.get("messages", record.get("traj")) if isinstance(record, dict) else record
    if not isinstance(messages, list) or not messages:
        return None
    if not all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages):
        return None
    return messages


def _blocks(message: dict[str, Any]) -> Iterator[str]:
    content = message.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("type"), str):
                yield block["type"]


def _has_openai_marks(messages: list[dict[str, Any]]) -> bool:
    return any(
        m["role"] in ("tool", "function", "developer") or _OPENAI_MESSAGE_KEYS & m.keys()
        for m in messages
    )


def _has_anthropic_marks(messages: list[dict[str, Any]]) -> bool:
    return any(block in _ANTHROPIC_BLOCKS for m in messages for block in _blocks(m))


def looks_like_openai_chat(head: object) -> bool:
    messages = conversation_messages(head)
    return (
        messages is not None
        and all(m["role"] in _OPENAI_ROLES for m in messages)
        and not _has_anthropic_marks(messages)
    )


def looks_like_anthropic(head: object) -> bool:
    messages = conversation_messages(head)
    return (
        messages is not None
        and all(m["role"] in _ANTHROPIC_ROLES for m in messages)
        and not _has_openai_marks(messages)
    )


def looks_like_taubench(head: object) -> bool:
    record = first_record(head)
    return isinstance(record, dict) and "traj" in record and "reward" in record


def looks_like_bfcl(head: object) -> bool:
    return (
        isinstance(head, dict)
        and isinstance(head.get("id"), str)
        and "result" in head
        and not {"messages", "traj", "output", "run_type"} & head.keys()
    )


def _read_openai(path: Path, options: ImportOptions) -> Iterator[Run]:
    from judgekit.importers.openai_chat import import_openai

    return import_openai(
        path, task_id=options.task_id, error_pattern=options.error_pattern, run_ids=options.run_ids
    )


def _read_anthropic(path: Path, options: ImportOptions) -> Iterator[Run]:
    from judgekit.importers.anthropic_messages import import_anthropic

    return import_anthropic(path, task_id=options.task_id, run_ids=options.run_ids)


def _read_taubench(path: Path, options: ImportOptions) -> Iterator[Run]:
    from judgekit.importers.taubench import import_taubench

    return iter(import_taubench(path, run_ids=options.run_ids).runs)


def _read_bfcl(path: Path, options: ImportOptions) -> Iterator[Run]:
    from judgekit.importers.bfcl_files import bfcl_tasks_and_runs, join_bfcl_files

    return options.run_ids.apply(bfcl_tasks_and_runs(join_bfcl_files(path), []))


OPENAI = Importer(
    "openai", "OpenAI Chat Completions transcripts", looks_like_openai_chat, _read_openai
)
ANTHROPIC = Importer(
    "anthropic", "Anthropic Messages transcripts", looks_like_anthropic, _read_anthropic
)
TAUBENCH = Importer("taubench", "τ-bench trajectories", looks_like_taubench, _read_taubench)
BFCL = Importer("bfcl", "BFCL results", looks_like_bfcl, _read_bfcl)
