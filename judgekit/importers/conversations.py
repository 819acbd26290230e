"""Transcript files read as conversations: their messages and the record fields around them.

A transcript file (plain or ``.gz``) holds conversations in one of three shapes, detected
from its first line:

- one JSON document holding one conversation: a list of messages, or an object with a
  ``messages`` list (τ-bench names it ``traj``);
- one JSON document holding a list of such conversations;
- JSONL: one conversation per line, streamed line by line.

Keys of a conversation object beside its messages: ``run_id``, ``task_id``, ``trial``,
``input``, ``usage``, ``cost_usd``, ``duration_s``, ``metadata``, ``initial_state``,
``final_state`` and ``stop_reason`` carry over to the Run. Any other key whose value is a
scalar (string, number, true/false, null) goes into the Run's ``metadata``; a key holding an
object or a list (τ-bench's ``info``, a ``tools`` list) is dropped to keep runs small, and
its name is listed in ``metadata["dropped_fields"]``. The record's own ``metadata`` wins over
a scalar key of the same name.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

from judgekit._util.jsonl import iter_lines, parse_json, read_json_document
from judgekit.errors import DataError
from judgekit.importers.locations import Location, as_object, describe_json, required_string

CARRIED_FIELDS = (
    "run_id",
    "task_id",
    "trial",
    "input",
    "usage",
    "cost_usd",
    "duration_s",
    "metadata",
    "initial_state",
    "final_state",
    "stop_reason",
)
MESSAGE_KEYS = ("messages", "traj")

_CONVERSATION_SHAPES = "a list of messages, or an object with a `messages` (or `traj`) list"
_NOT_JSON = object()


@dataclass(frozen=True)
class Message:
    """One message of a conversation, with its role and where it sits in the file."""

    role: str
    data: dict[str, Any]
    where: Location

    def text(self) -> str | None:
        """The text of the message's ``content`` (see :func:`content_text`)."""
        return content_text(self.data.get("content"), self.where.key("content"))


@dataclass(frozen=True)
class Conversation:
    """One conversation of a transcript file, before any format-specific reading.

    ``carried`` holds the record's keys that become Run fields; ``metadata`` the record's
    metadata merged with its other scalar keys.
    """

    where: Location
    index: int
    messages: list[Any]
    messages_where: Location
    carried: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return self.where.path

    def iter_messages(self, valid_roles: tuple[str, ...]) -> Iterator[Message]:
        """Each message, checked to be an object whose ``role`` is one of ``valid_roles``."""
        for number, raw in enumerate(self.messages):
            where = self.messages_where.item(number)
            data = as_object(raw, where, "a message object with a `role`")
            role = data.get("role")
            if role not in valid_roles:
                problem = "required field is missing" if role is None else f"unknown role {role!r}"
                raise where.key("role").error(f"{problem}; valid roles: {', '.join(valid_roles)}")
            yield Message(role=role, data=data, where=where)


def iter_conversations(
    path: str | Path, *, ignored_keys: frozenset[str] = frozenset()
) -> Iterator[Conversation]:
    """Yield the conversations of a transcript file, whichever of the three shapes it has.

    ``ignored_keys`` names record keys that belong to the transcript format (Anthropic's
    ``system``) and so are neither carried over nor kept in metadata::

        for conversation in iter_conversations("chats.jsonl"):
            print(conversation.index, len(conversation.messages))
    """
    source = Path(path)
    lines = iter_lines(source)
    first = next(lines, None)
    if first is None:
        raise DataError(f"empty file; expected {_CONVERSATION_SHAPES}, or JSONL", path=source)
    first_value = _parse_or_marker(first[1])
    if first_value is _NOT_JSON:
        # The first line alone is not JSON, so the file is one multi-line JSON document.
        document = _load_document(source)
        yield from _document_conversations(document, source, None, ignored_keys)
        return
    second = next(lines, None)
    if second is None:
        yield from _document_conversations(first_value, source, first[0], ignored_keys)
        return
    yield _conversation(first_value, Location(source, first[0]), 0, ignored_keys)
    for index, (number, text) in enumerate(chain([second], lines), start=1):
        value = _parse_line(text, source, number)
        yield _conversation(value, Location(source, number), index, ignored_keys)


def _parse_or_marker(text: str) -> Any:
    try:
        return parse_json(text)
    except json.JSONDecodeError:
        return _NOT_JSON


def _parse_line(text: str, path: Path, number: int) -> Any:
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            f"malformed JSON at column {exc.colno}: {exc.msg} "
            "(JSONL: each line must be one whole conversation)",
            path=path,
            line=number,
        ) from None


def _load_document(path: Path) -> Any:
    return read_json_document(
        path, expected="expected one JSON document, or JSONL: one conversation per line"
    )


def _document_conversations(
    document: Any, path: Path, line: int | None, ignored_keys: frozenset[str]
) -> Iterator[Conversation]:
    root = Location(path, line)
    if isinstance(document, list) and document and _looks_like_conversation(document[0]):
        for index, value in enumerate(document):
            yield _conversation(value, root.item(index), index, ignored_keys)
    elif isinstance(document, list) and not document:
        return
    else:
        yield _conversation(document, root, 0, ignored_keys)


def _looks_like_conversation(value: Any) -> bool:
    return isinstance(value, list) or (
        isinstance(value, dict) and any(key in value for key in MESSAGE_KEYS)
    )


def _conversation(
    value: Any, where: Location, index: int, ignored_keys: frozenset[str]
) -> Conversation:
    if isinstance(value, list):
        return Conversation(where, index, value, where)
    if not isinstance(value, dict):
        raise where.error(
            f"expected a conversation: {_CONVERSATION_SHAPES}; got {describe_json(value)}"
        )
    present = [key for key in MESSAGE_KEYS if key in value]
    if not present:
        hint = "a single message" if "role" in value else "an object without `messages`"
        raise where.error(f"expected a conversation: {_CONVERSATION_SHAPES}; got {hint}")
    if len(present) > 1:
        raise where.error("has both `messages` and `traj`; keep one")
    messages_key = present[0]
    messages_where = where.key(messages_key)
    messages = value[messages_key]
    if not isinstance(messages, list):
        raise messages_where.error(f"expected a list of messages, got {describe_json(messages)}")
    record = {key: item for key, item in value.items() if key != messages_key}
    carried, metadata = _split_record(record, where, ignored_keys)
    return Conversation(where, index, messages, messages_where, carried, metadata)


def _split_record(
    record: dict[str, Any], where: Location, ignored_keys: frozenset[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    carried = {key: record[key] for key in CARRIED_FIELDS if key in record}
    own_metadata = as_object(carried.pop("metadata", {}), where.key("metadata"))
    extras = {
        key: value
        for key, value in record.items()
        if key not in CARRIED_FIELDS and key not in ignored_keys
    }
    metadata = {key: value for key, value in extras.items() if not isinstance(value, dict | list)}
    dropped = sorted(key for key, value in extras.items() if isinstance(value, dict | list))
    if dropped:
        metadata["dropped_fields"] = dropped
    metadata.update(own_metadata)
    return carried, metadata


# --- Pieces of messages both formats share -----------------------------------------------


def has_text(text: str | None) -> bool:
    """True when ``text`` holds more than white space."""
    return text is not None and bool(text.strip())


def content_text(content: Any, where: Location) -> str | None:
    """The text of a message or tool result content, None when it has none.

    Content is a string, or a list of parts (OpenAI) or blocks (Anthropic) whose ``text``
    parts are joined by newlines; other parts (images, tool blocks, refusals) are skipped.

    >>> parts = [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]
    >>> content_text(parts, Location(Path("chat.json")))
    'a\\nb'
    """
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise where.error(
            f"expected a string or a list of content parts, got {describe_json(content)}"
        )
    texts: list[str] = []
    for number, part in enumerate(content):
        part_where = where.item(number)
        block = as_object(part, part_where, "a content part object with a `type`")
        if required_string(block, "type", part_where) == "text":
            texts.append(required_string(block, "text", part_where))
    return "\n".join(texts) if texts else None
