"""The Run format: one agent run, one JSON object per line of ``runs.jsonl``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar

import pydantic_core
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from judgekit._util.jsonl import LINE_ERRORS, iter_appended_models, iter_lines, warn_on_stderr
from judgekit.errors import DataError, map_exceptions
from judgekit.formats.numbers import Count, NonNegativeFloat

StopReason = Literal["completed", "max_turns", "max_tool_calls", "max_cost", "timeout", "error"]
ExecutedBy = Literal["agent", "provider"]


class ToolCall(BaseModel):
    """One tool call the agent made, with what the tool answered.

    ``args`` holds the parsed arguments. When the agent sent arguments that are not a JSON
    object, ``args`` is empty, ``raw_arguments`` keeps exactly what was sent and
    ``arguments_error`` says why it could not be parsed: the call is kept and flagged,
    never dropped.

    ``executed_by`` says who ran the tool: the agent's own code (``"agent"``, the default),
    or the model provider on its servers (``"provider"``: Anthropic's server tools such as
    ``web_search`` and ``code_execution``, OpenAI's built-in tools such as
    ``web_search_call``), whose input and result the provider reports in its response.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = Field(
        default=None, description="Set when the tool refused or failed the call."
    )
    id: str | None = None
    raw_arguments: str | None = Field(
        default=None, description="The arguments as sent, when they could not be parsed."
    )
    arguments_error: str | None = Field(
        default=None, description="Why the arguments could not be parsed (None when they could)."
    )
    executed_by: ExecutedBy = Field(
        default="agent",
        description="Who ran the tool: the agent's code, or the model provider on its servers.",
    )

    @model_serializer(mode="wrap")
    def _always_args(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Empty arguments are a value (`{}`), not a default to leave out: a reader other than
        # judgekit would take a missing `args` for null.
        data: dict[str, Any] = handler(self)
        return data if "args" in data else {"name": data.pop("name"), "args": {}, **data}


class Usage(BaseModel):
    """Token counts for the whole run."""

    model_config = ConfigDict(extra="allow")

    input_tokens: Count = 0
    output_tokens: Count = 0


class Message(BaseModel):
    """One message of a conversation of several exchanges (the traces of one session):
    who sent it, its text, and how many of the run's tool calls were made before it."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: str
    after_tool_calls: Count = Field(
        default=0, description="How many of the run's tool_calls came before this message."
    )


class Run(BaseModel):
    """One agent run: what it was asked, which tools it called, how it ended.

    Only ``run_id`` is required: a run of a plain final answer (``{run_id, input,
    final_answer, reference}``) made no tool call (``tool_calls`` empty) and may belong to no
    task, which judging with a rubric that reads nothing of a task needs not.
    """

    model_config = ConfigDict(extra="forbid")

    run_id: str
    task_id: str | None = Field(
        default=None, description="The task it ran; grading needs one, judging may not."
    )
    trial: int | None = None
    input: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    final_answer: str | None = None
    reference: str | None = Field(
        default=None,
        description="A reference answer for judges' {reference}; the task's is used without it.",
    )
    messages_to_user: list[str] = Field(
        default_factory=list,
        description="Every text the agent sent the user, in order, as sent (the last is "
        "usually final_answer); read by expect_answer.",
    )
    messages: list[Message] = Field(
        default_factory=list,
        description="A conversation's every user message and answer, in order, when the run "
        "is several exchanges (the traces of one session); empty when input and "
        "messages_to_user say it all.",
    )
    turns: Count | None = None
    usage: Usage | None = None
    cost_usd: NonNegativeFloat | None = None
    duration_s: NonNegativeFloat | None = None
    stop_reason: StopReason | None = Field(
        default=None, description="How the run ended; absent means it completed."
    )
    initial_state: dict[str, Any] | None = None
    final_state: dict[str, Any] | None = None
    violations: list[str] = Field(
        default_factory=list,
        description="Rules the agent broke while running (an edited protected file); any fails the run.",
    )
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def completed(self) -> bool:
        return self.stop_reason in (None, "completed")

    @model_validator(mode="after")
    def _messages_follow_the_calls(self) -> Run:
        # A message placed after more calls than the run made, or before an earlier one's,
        # would show the conversation out of order.
        made = 0
        for index, message in enumerate(self.messages):
            if not made <= message.after_tool_calls <= len(self.tool_calls):
                raise ValueError(
                    f"messages[{index}].after_tool_calls is {message.after_tool_calls}; "
                    f"expected {made} to {len(self.tool_calls)} (the calls made before it, "
                    "never fewer than the message before it)"
                )
            made = message.after_tool_calls
        return self

    @model_serializer(mode="wrap")
    def _always_tool_calls(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        # No tool call is written `[]`, even in a compact line (exclude_defaults): readers
        # of runs files written before tool_calls could be left out require the field.
        data: dict[str, Any] = handler(self)
        if "tool_calls" in data or not _left_out_as_default(info):
            return data
        kept: dict[str, Any] = {}  # in the fields' order, as written before
        for name, value in data.items():
            if name in _AFTER_TOOL_CALLS and "tool_calls" not in kept:
                kept["tool_calls"] = []
            kept[name] = value
        kept.setdefault("tool_calls", [])
        return kept


def _left_out_as_default(info: SerializationInfo) -> bool:
    """Whether a dump without ``tool_calls`` left it out for being empty, not by name."""
    named_out = "tool_calls" in (info.exclude or ()) or (
        info.include is not None and "tool_calls" not in info.include
    )
    return info.exclude_defaults and not named_out


_FIELDS = list(Run.model_fields)
_AFTER_TOOL_CALLS = frozenset(_FIELDS[_FIELDS.index("tool_calls") + 1 :])

# How deep the JSON parser behind Run.model_validate_json reads (jiter's recursion limit).
READ_DEPTH = 200


def run_json(run: Run, *, exclude_defaults: bool = False) -> str:
    """The run as one JSON line (without its newline), refused with a :class:`DataError`
    when no reader could take it back: a tool argument, result or state nested deeper than
    a runs file is read (:data:`READ_DEPTH` levels), which an agent's or model's data may
    be. Callers add the file to the error (``DataError(exc.message, path=...)``).
    """
    try:
        text = run.model_dump_json(exclude_defaults=exclude_defaults)
        if text.count("[") + text.count("{") > READ_DEPTH:  # cheap: most runs never get close
            pydantic_core.from_json(text)  # the parser every reader of runs.jsonl uses
    except ValueError:  # pydantic's serialisation error ("depth exceeded") is a ValueError too
        raise DataError(
            f"run {run.run_id!r} holds a value nested more than {READ_DEPTH} levels deep, "
            "deeper than a runs file is read"
        ) from None
    return text


def load_runs(path: str | Path) -> Iterator[Run]:
    """Stream the runs of a JSONL file, one at a time.

    A malformed line raises :class:`judgekit.errors.DataError` naming the file, the line
    and the field::

        for run in load_runs("runs.jsonl"):
            print(run.run_id, len(run.tool_calls))
    """
    for _, run in iter_runs_with_lines(path):
        yield run


def iter_runs_with_lines(path: str | Path) -> Iterator[tuple[int, Run]]:
    """Like :func:`load_runs`, with each run's line number (for error messages)."""
    for number, text in iter_lines(path):
        yield number, read_run_line(text, (path, number))


LeanT = TypeVar("LeanT")


def read_run_line(
    text: str, at: tuple[str | Path, int], *, lean: Callable[[str], LeanT | None] | None = None
) -> LeanT | Run:
    """The run on one line of a runs file (``at``: the file and the line's number): every
    run line judgekit reads is read here. A line that is not a valid run raises the
    :class:`~judgekit.errors.DataError` naming ``at`` and the field.

    ``lean`` (grading's :func:`judgekit.formats.run_lean.lean_run`) reads the line first
    into structs that hold what graders read; a line it is not sure of (``None``) is read
    by ``Run``, which accepts it or raises the usual error.
    """
    if lean is not None:
        run = lean(text)
        if run is not None:
            return run
    with map_exceptions(LINE_ERRORS, at):
        return Run.model_validate_json(text)


def iter_appended_runs(
    path: str | Path, *, warn: Callable[[str], None] = warn_on_stderr
) -> Iterator[tuple[int, str, Run]]:
    """``(line, text, run)`` of the ``runs.jsonl`` that ``judgekit run`` appends to, read as
    every append-only file (:func:`judgekit._util.jsonl.append_only_lines`): a last line a
    crash cut short is left out, and ``warn`` (stderr) told."""
    return iter_appended_models(path, Run, warn=warn)


class RunIdLines:
    """The line on which each run id of one file was first seen; a second one is refused.

    A run counted twice would count its trial twice in every rate, so every reader of a
    runs or results file keeps one of these (a set of ids fits in memory for a million runs)::

        seen = RunIdLines("runs.jsonl")
        for line, run in iter_runs_with_lines("runs.jsonl"):
            seen.add(run.run_id, line)   # DataError on a repeated id
    """

    def __init__(self, path: str | Path) -> None:
        self.path = path
        self.first_line: dict[str, int] = {}

    def add(self, run_id: str, line: int) -> None:
        first = self.first_line.setdefault(run_id, line)
        if first != line:
            raise DataError(
                f"duplicate run id {run_id!r} (first at line {first}); each run id must "
                "appear once",
                path=self.path,
                line=line,
                field="run_id",
            )

    def __len__(self) -> int:
        return len(self.first_line)


def no_runs_error(path: str | Path) -> DataError:
    """The error for a runs file that holds no run: ``no runs in runs.jsonl``."""
    error = DataError(f"no runs in {path}")
    error.path = str(path)  # for callers; the message already names the file
    return error


def iter_unique_runs(
    path: str | Path, *, seen: RunIdLines | None = None
) -> Iterator[tuple[int, Run]]:
    """Stream ``(line, run)`` from a runs file, checking it as it goes.

    A malformed line, a run id seen on an earlier line, and (once the stream ends) a file
    with no runs raise :class:`judgekit.errors.DataError` naming the file and the lines.
    Only the ids are remembered (in ``seen``, when given), so memory stays small for a
    million runs. A consumer that writes its output atomically (``grade``) writes nothing
    when the error comes late.
    """
    seen = seen if seen is not None else RunIdLines(path)
    for line, run in iter_runs_with_lines(path):
        seen.add(run.run_id, line)
        yield line, run
    if not len(seen):
        raise no_runs_error(path)


def runs_file_ids(path: str | Path) -> dict[str, int]:
    """Read and check a whole runs file (as :func:`iter_unique_runs`) before any of it is used.

    Returns each run id with its line, in file order (a dict: fast ``in`` and ``len``).
    """
    seen = RunIdLines(path)
    for _ in iter_unique_runs(path, seen=seen):
        pass
    return seen.first_line


def check_runs_file(path: str | Path) -> int:
    """Check a whole runs file and return how many runs it holds.

    Every line must be a valid Run (finite, non-negative numbers included), each run id must
    appear once, and the file must hold at least one run; otherwise
    :class:`judgekit.errors.DataError` says where, e.g.
    ``runs.jsonl:6: run_id: duplicate run id 'shop/x/1' (first at line 2); each run id must
    appear once`` or ``no runs in runs.jsonl``. Nothing but the ids is kept in memory.
    """
    return len(runs_file_ids(path))
