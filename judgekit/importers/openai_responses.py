"""Runs from OpenAI Responses API logs: ``response`` objects and their input/output items.

A record is a ``response`` object (as ``Response.model_dump()`` writes it), optionally with
the request's ``input`` beside its ``output``; an object with ``input`` and ``output`` item
lists; or a bare list of items. The file holds one record, a JSON list of them, or one per
line. Records chained by ``previous_response_id`` make one run (each holds the new items of
its turn); any other record is a run of its own.

Items: ``message`` (user text is the run's input, assistant text its messages), a
``function_call`` (``arguments`` a JSON string) answered by the ``function_call_output`` of
the same ``call_id``, ``custom_tool_call`` / ``custom_tool_call_output``, ``mcp_call`` (call
and result in one item), and built-in tool calls named by their type. Those OpenAI runs
(``web_search_call``, ``file_search_call``, ``code_interpreter_call``,
``image_generation_call``, ``mcp_call``: no ``call_id``) are calls with
``executed_by="provider"``, with what the item holds as arguments (``action``; ``queries``;
``code`` and ``container_id``) and result (``action.sources`` aside: ``results``;
``outputs``; ``result``). Those the agent runs (``computer_call``, ``local_shell_call``,
``shell_call``, ``apply_patch_call``: with a ``call_id``) take their ``action`` (or
``operation``) as arguments and are answered by the ``*_call_output`` item of the same
``call_id``. ``reasoning`` is not part of a run; other item types
are counted in ``metadata["unread_item_types"]``. Usage is summed over the records.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgekit.formats.run import Run, ToolCall
from judgekit.importers.conversations import Conversation
from judgekit.importers.interface import DEFAULT_ERROR_PATTERN, Importer, ImportOptions
from judgekit.importers.json_values import iter_json_values
from judgekit.importers.locations import (
    Location,
    as_object,
    describe_json,
    optional_string,
    required_string,
)
from judgekit.importers.openai_chat import compile_error_pattern
from judgekit.importers.run_draft import (
    RunDraft,
    error_message,
    id_key,
    new_tool_call,
    parse_result,
)
from judgekit.importers.unique_ids import UniqueRunIds

__all__ = ["IMPORTER", "import_openai_responses"]

_ITEM_TYPES = frozenset(
    {"message", "function_call", "function_call_output", "reasoning", "custom_tool_call"}
)
_ASSISTANT_ITEMS = frozenset({"function_call", "custom_tool_call", "mcp_call", "reasoning"})
_RECORD_FIELDS = ("run_id", "task_id", "trial", "cost_usd", "duration_s", "final_state")
_FAILED_STATUSES = {"failed": "error", "cancelled": "error"}
_ITEM = "an input or output item object with a `type`"


def import_openai_responses(
    path: str | Path,
    *,
    task_id: str | None = None,
    error_pattern: str | None = DEFAULT_ERROR_PATTERN,
    run_ids: UniqueRunIds | None = None,
) -> Iterator[Run]:
    """The runs of an OpenAI Responses API log (see the module's description).

    A tool result is an error when ``error_pattern`` is found in its text (the Responses
    API has no error flag; None turns the guess off). A run's id is its record's ``run_id``,
    else its first response's ``id``; a malformed file raises a DataError naming the file,
    the line and the field::

        for run in import_openai_responses("responses.jsonl"):
            print(run.run_id, [call.name for call in run.tool_calls])
    """
    pattern = compile_error_pattern(error_pattern)
    chains = _chains(Path(path))
    runs = (_run(chain, index, task_id, pattern) for index, chain in enumerate(chains))
    return (run_ids if run_ids is not None else UniqueRunIds()).apply(runs)


def _records(path: Path) -> Iterator[tuple[Location, dict[str, Any]]]:
    for where, value in iter_json_values(path):
        if isinstance(value, list) and value and not _is_item_list(value):
            for number, record in enumerate(value):
                yield where.item(number), _record(record, where.item(number))
        else:
            yield where, _record(value, where)


def _is_item_list(value: list[Any]) -> bool:
    return all(isinstance(item, dict) and "output" not in item for item in value)


def _record(value: Any, where: Location) -> dict[str, Any]:
    if isinstance(value, list):
        return {"output": value}
    record = as_object(value, where, "a response object, or an object with `input`/`output`")
    if "output" not in record and "input" not in record:
        raise where.key("output").error("required field is missing (expected a list of items)")
    return record


def _chains(path: Path) -> list[list[tuple[Location, dict[str, Any]]]]:
    chains: list[list[tuple[Location, dict[str, Any]]]] = []
    chain_of: dict[str, int] = {}
    for where, record in _records(path):
        previous = optional_string(record, "previous_response_id", where)
        index = chain_of.get(previous) if previous is not None else None
        if index is None:
            index = len(chains)
            chains.append([])
        chains[index].append((where, record))
        response_id = optional_string(record, "id", where)
        if response_id is not None:
            chain_of[response_id] = index
    return chains


def _run(
    chain: list[tuple[Location, dict[str, Any]]],
    index: int,
    task_id: str | None,
    pattern: re.Pattern[str] | None,
) -> Run:
    first_where, first = chain[0]
    carried = {key: first[key] for key in _RECORD_FIELDS if key in first}
    carried.setdefault("run_id", first.get("id"))
    metadata: dict[str, Any] = {}
    if isinstance(first.get("model"), str):
        metadata["model"] = first["model"]
    if isinstance(first.get("metadata"), dict):
        metadata.update(first["metadata"])  # the key-value pairs the request was tagged with
    reader = _ItemReader(
        RunDraft(Conversation(first_where, index, [], first_where, carried, metadata)), pattern
    )
    for where, record in chain:
        reader.read_record(record, where)
    return reader.finish(task_id)


class _ItemReader:
    """Feeds a RunDraft item by item, counting model turns and the items it cannot read."""

    def __init__(self, draft: RunDraft, pattern: re.Pattern[str] | None) -> None:
        self.draft = draft
        self.pattern = pattern
        self.turns = 0
        self.in_turn = False
        self.unread: set[str] = set()
        self.stop_reason: str | None = None
        self.incomplete: str | None = None

    def read_record(self, record: dict[str, Any], where: Location) -> None:
        given = record.get("input")
        if isinstance(given, str):
            self.draft.add_user_text(given)
            self.in_turn = False
        elif given is not None:
            self._read_items(given, where.key("input"))
        self.in_turn = False  # a new response is a new turn
        if record.get("output") is not None:
            self._read_items(record["output"], where.key("output"))
        if record.get("usage") is not None:
            self.draft.add_usage(record["usage"], where.key("usage"))
        self._read_status(record, where)

    def _read_status(self, record: dict[str, Any], where: Location) -> None:
        status = optional_string(record, "status", where)
        self.stop_reason = _FAILED_STATUSES.get(status or "")
        details = record.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        self.incomplete = reason if status == "incomplete" else None

    def _read_items(self, items: Any, where: Location) -> None:
        if not isinstance(items, list):
            raise where.error(f"expected a list of items, got {describe_json(items)}")
        for number, raw in enumerate(items):
            item_where = where.item(number)
            self._read_item(as_object(raw, item_where, _ITEM), item_where)

    def _read_item(self, item: dict[str, Any], where: Location) -> None:
        kind = optional_string(item, "type", where) or ("message" if "role" in item else None)
        if kind is None:
            raise where.key("type").error(f"required field is missing ({_ITEM})")
        role = item.get("role") if kind == "message" else None
        if kind in _ASSISTANT_ITEMS or role == "assistant" or kind.endswith("_call"):
            if not self.in_turn:
                self.turns += 1
            self.in_turn = True
        else:
            self.in_turn = False
        if kind == "message":
            self._read_message(item, where)
        elif kind in ("function_call", "custom_tool_call"):
            self._read_call(item, where, kind)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._read_output(item, where)
        elif kind.endswith("_call_output"):
            self._read_builtin_output(item, where)
        elif kind == "mcp_call":
            self._read_mcp_call(item, where)
        elif kind.endswith("_call"):
            self._read_builtin_call(item, kind, where)
        elif kind != "reasoning":
            self.unread.add(kind)

    def _read_message(self, item: dict[str, Any], where: Location) -> None:
        role = required_string(item, "role", where)
        text = _content_text(item.get("content"), where.key("content"))
        if role == "user":
            self.draft.add_user_text(text)
        elif role == "assistant":
            turns = self.draft.turns
            self.draft.add_assistant_message(text)
            self.draft.turns = turns  # turns are counted here, by model response

    def _read_call(self, item: dict[str, Any], where: Location, kind: str) -> None:
        name = required_string(item, "name", where)
        call_id = optional_string(item, "call_id", where)
        if kind == "custom_tool_call":
            call = ToolCall(name=name, args={"input": item.get("input")}, id=call_id)
        else:
            call = new_tool_call(name, item.get("arguments"), call_id)
        self.draft.add_call(call, id_key(call_id))

    def _read_output(self, item: dict[str, Any], where: Location) -> None:
        call_id = required_string(item, "call_id", where)
        text = _content_text(item.get("output"), where.key("output"))
        failed = self.pattern is not None and text is not None and self.pattern.search(text)
        self.draft.add_result(
            id_key(call_id), parse_result(text), error_message(text) if failed else None
        )

    def _read_mcp_call(self, item: dict[str, Any], where: Location) -> None:
        call = new_tool_call(required_string(item, "name", where), item.get("arguments"), None)
        output = optional_string(item, "output", where)
        call.result = parse_result(output)
        error = optional_string(item, "error", where)
        call.error = error_message(error) if error is not None else None
        call.executed_by = "provider"  # OpenAI calls the MCP server
        self.draft.add_call(call, None)

    def _read_builtin_call(self, item: dict[str, Any], kind: str, where: Location) -> None:
        call_id = optional_string(item, "call_id", where)
        if call_id is not None:  # the agent runs it and answers with a *_call_output item
            given = item.get("action", item.get("operation"))
            call = ToolCall(name=kind, args=given if isinstance(given, dict) else {}, id=call_id)
            self.draft.add_call(call, id_key(call_id))
            return
        args, result = _builtin_input_and_result(item)
        failed = optional_string(item, "status", where) == "failed"
        call = ToolCall(name=kind, args=args, result=result, executed_by="provider")
        call.id = optional_string(item, "id", where)
        call.error = error_message(_builtin_error(item)) if failed else None
        self.draft.add_call(call, None)

    def _read_builtin_output(self, item: dict[str, Any], where: Location) -> None:
        output = item.get("output")
        result = parse_result(output) if isinstance(output, str) else output
        failed = optional_string(item, "status", where) in ("failed", "incomplete")
        error = error_message(output if isinstance(output, str) else None) if failed else None
        self.draft.add_result(id_key(required_string(item, "call_id", where)), result, error)

    def finish(self, task_id: str | None) -> Run:
        draft = self.draft
        draft.turns = self.turns
        if self.stop_reason is not None:
            draft.conversation.carried["stop_reason"] = self.stop_reason
        if self.incomplete is not None:
            draft.conversation.metadata["incomplete_reason"] = self.incomplete
        if self.unread:
            draft.conversation.metadata["unread_item_types"] = sorted(self.unread)
        return draft.finish(default_task_id=task_id)


# What a provider-run tool's item holds as its input and as its result, by item type.
_BUILTIN_INPUTS = {
    "file_search_call": ("queries",),
    "code_interpreter_call": ("code", "container_id"),
}
_BUILTIN_RESULTS = {
    "file_search_call": "results",
    "code_interpreter_call": "outputs",
    "image_generation_call": "result",
}


def _builtin_input_and_result(item: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    kind = item["type"]
    action = item.get("action")
    args = action if isinstance(action, dict) else {}
    for key in _BUILTIN_INPUTS.get(kind, ()):
        if item.get(key) is not None:
            args[key] = item[key]
    result_key = _BUILTIN_RESULTS.get(kind)
    return args, item.get(result_key) if result_key is not None else None


def _builtin_error(item: dict[str, Any]) -> str | None:
    error = item.get("error")
    if isinstance(error, dict):
        error = error.get("message")
    return error if isinstance(error, str) else None


def _content_text(content: Any, where: Location) -> str | None:
    """A message's or tool output's text: a string, or the ``text`` of its text parts."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise where.error(
            f"expected a string or a list of content parts, got {describe_json(content)}"
        )
    texts = []
    for number, raw in enumerate(content):
        part_where = where.item(number)
        part = as_object(raw, part_where, "a content part object with a `type`")
        if required_string(part, "type", part_where) in ("input_text", "output_text", "text"):
            texts.append(required_string(part, "text", part_where))
    return "\n".join(texts) if texts else None


def looks_like_responses(head: object) -> bool:
    """A response object, a record with Responses items, or a list of either."""
    record = head[0] if isinstance(head, list) and head else head
    if isinstance(record, dict) and record.get("object") == "response":
        return True
    items = record.get("output") if isinstance(record, dict) else head
    if not isinstance(items, list):
        return False
    kinds = {item.get("type") for item in items if isinstance(item, dict)}
    return bool(kinds & (_ITEM_TYPES - {"message"})) or (
        "message" in kinds and _has_output_text(items)
    )


def _has_output_text(items: list[Any]) -> bool:
    return any(
        isinstance(part, dict) and part.get("type") in ("output_text", "input_text")
        for item in items
        if isinstance(item, dict) and isinstance(item.get("content"), list)
        for part in item["content"]
    )


def _read(path: Path, options: ImportOptions) -> Iterator[Run]:
    return import_openai_responses(
        path, task_id=options.task_id, error_pattern=options.error_pattern, run_ids=options.run_ids
    )


IMPORTER = Importer(
    name="openai-responses",
    what="OpenAI Responses API output",
    looks_like=looks_like_responses,
    read=_read,
    details=(
        "FILE holds response objects (as Response.model_dump() writes them, with the "
        "request's `input` beside `output` when logged), objects with `input` and `output` "
        "item lists, or bare item lists: one document, a JSON list or one per line. Responses "
        "chained by previous_response_id make one run. function_call items are paired with "
        "their function_call_output by call_id; usage is summed."
    ),
    guesses_errors=True,
)
