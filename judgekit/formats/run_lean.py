"""The lean structs grading reads a runs.jsonl line into, at parse speed.

Every run line is read by :func:`judgekit.formats.run.read_run_line`; graders have it try
:func:`lean_run` first, which decodes the line with msgspec straight into slotted structs that hold the same fields as
:class:`judgekit.formats.run.Run`. They are stricter than ``Run``, never looser:
:func:`lean_run` returns ``None`` for any line they are not sure of (malformed JSON, an
unknown field, a value of another type that pydantic's lax mode might coerce, a negative
count), and that line is then read by ``Run.model_validate_json``, which either accepts it
or raises the usual error. So a line graded through the lean structs gives the same grade
as through ``Run``, and a bad line the same error. Whatever needs the whole run (judging,
the store, labelling) reads the ``Run`` itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import msgspec

from judgekit._util.jsonl import iter_lines
from judgekit.formats.run import Run, RunIdLines, StopReason, no_runs_error, read_run_line

_NotNegative = msgspec.Meta(ge=0)
_NULL = msgspec.Raw(b"null")
_EMPTY_OBJECT = msgspec.Raw(b"{}")


class LeanCall(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The fields of :class:`judgekit.formats.run.ToolCall`."""

    name: str
    args: dict[str, Any] = {}
    # What the tool answered: checked as JSON, never decoded (no grader reads it).
    result_json: msgspec.Raw = msgspec.field(default=_NULL, name="result")
    error: str | None = None
    id: str | None = None
    raw_arguments: str | None = None
    arguments_error: str | None = None
    executed_by: Literal["agent", "provider"] = "agent"


class LeanUsage(msgspec.Struct, kw_only=True):
    """:class:`judgekit.formats.run.Usage`: other keys are allowed (and read, not kept)."""

    input_tokens: Annotated[int, _NotNegative] = 0
    output_tokens: Annotated[int, _NotNegative] = 0


class LeanRun(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The fields of :class:`judgekit.formats.run.Run` that grading reads, with the same
    checks or stricter. ``metadata`` and tool results are checked as JSON, not decoded."""

    run_id: str
    task_id: str | None = None
    trial: int | None = None
    input: str | None = None
    tool_calls: list[LeanCall] = []
    final_answer: str | None = None
    reference: str | None = None
    messages_to_user: list[str] = []
    turns: Annotated[int, _NotNegative] | None = None
    usage: LeanUsage | None = None
    # msgspec refuses NaN and out-of-range numbers, so ge=0 makes these finite too.
    cost_usd: Annotated[float, _NotNegative] | None = None
    duration_s: Annotated[float, _NotNegative] | None = None
    stop_reason: StopReason | None = None
    initial_state: dict[str, Any] | None = None
    final_state: dict[str, Any] | None = None
    violations: list[str] = []
    metadata_json: msgspec.Raw = msgspec.field(default=_EMPTY_OBJECT, name="metadata")

    # Every value was decoded from JSON: graders may compare values by their JSON encoding.
    json_values: ClassVar[bool] = True

    @property
    def completed(self) -> bool:
        return self.stop_reason in (None, "completed")


_DECODER = msgspec.json.Decoder(LeanRun)
_OPEN_BRACE = ord("{")


def lean_run(text: str | bytes) -> LeanRun | None:
    """The run on one line, or ``None`` when the line must be read by ``Run`` instead."""
    try:
        run = _DECODER.decode(text)
    except (msgspec.DecodeError, UnicodeDecodeError):  # msgspec.ValidationError is a DecodeError
        return None
    if memoryview(run.metadata_json)[0] != _OPEN_BRACE:
        return None  # metadata must be an object
    return run


def iter_unique_lean_runs(
    path: str | Path, *, seen: RunIdLines | None = None
) -> Iterator[tuple[int, LeanRun | Run]]:
    """:func:`judgekit.formats.run.iter_unique_runs`, each line read by
    :func:`lean_run` when it can be and by ``Run`` otherwise: the same runs, the same errors,
    faster."""
    for line, _, run in iter_unique_lean_run_lines(path, seen=seen):
        yield line, run


def iter_unique_lean_run_lines(
    path: str | Path, *, seen: RunIdLines | None = None
) -> Iterator[tuple[int, str, LeanRun | Run]]:
    """:func:`iter_unique_lean_runs` with each line's text, for a reader that makes the
    whole ``Run`` of a lean one later (``Run.model_validate_json`` of a line the lean
    structs took cannot fail: they are stricter)."""
    seen = seen if seen is not None else RunIdLines(path)
    for line, text in iter_lines(path):
        run = read_run_line(text, (path, line), lean=lean_run)
        seen.add(run.run_id, line)
        yield line, text, run
    if not len(seen):
        raise no_runs_error(path)
