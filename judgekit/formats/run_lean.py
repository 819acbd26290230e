"""A lean reader of one runs.jsonl line, for grading at parse speed.

:func:`lean_run` decodes a line with msgspec straight into slotted structs that hold the
same fields as :class:`judgekit.formats.run.Run`, several times faster than pydantic. It
is stricter than ``Run``, never looser: it returns ``None`` for any line it is not sure of
(malformed JSON, an unknown field, a value of another type that pydantic's lax mode might
coerce, a negative count), and the caller then reads that line with
``Run.model_validate_json``, which either accepts it or raises the usual error. So a line
graded through this reader gives the same grade as through ``Run``, and a bad line the
same error.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, ClassVar

import msgspec

from judgekit._util.jsonl import LINE_ERRORS, iter_lines
from judgekit.errors import map_exceptions
from judgekit.formats.run import Run, RunIdLines, StopReason, no_runs_error

_NotNegative = msgspec.Meta(ge=0)


class LeanCall(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The fields of :class:`judgekit.formats.run.ToolCall`."""

    name: str
    args: dict[str, Any] = {}
    result: Any = None
    error: str | None = None
    id: str | None = None
    raw_arguments: str | None = None
    arguments_error: str | None = None


class LeanUsage(msgspec.Struct, kw_only=True):
    """:class:`judgekit.formats.run.Usage`: other keys are allowed (and read, not kept)."""

    input_tokens: Annotated[int, _NotNegative] = 0
    output_tokens: Annotated[int, _NotNegative] = 0


class LeanRun(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The fields of :class:`judgekit.formats.run.Run`, with the same checks or stricter."""

    run_id: str
    task_id: str
    trial: int | None = None
    input: str | None = None
    tool_calls: list[LeanCall]
    final_answer: str | None = None
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
    metadata: dict[str, Any] = {}

    # Every value was decoded from JSON: graders may compare values by their JSON encoding.
    json_values: ClassVar[bool] = True

    @property
    def completed(self) -> bool:
        return self.stop_reason in (None, "completed")


_DECODER = msgspec.json.Decoder(LeanRun)


def lean_run(text: str | bytes) -> LeanRun | None:
    """The run on one line, or ``None`` when the line must be read by ``Run`` instead."""
    try:
        return _DECODER.decode(text)
    except (msgspec.DecodeError, UnicodeDecodeError):  # msgspec.ValidationError is a DecodeError
        return None


def iter_unique_lean_runs(
    path: str | Path, *, seen: RunIdLines | None = None
) -> Iterator[tuple[int, LeanRun | Run]]:
    """:func:`judgekit.formats.run.iter_unique_runs`, each line read by :func:`lean_run`
    when it can be and by ``Run`` otherwise: the same runs, the same errors, faster."""
    seen = seen if seen is not None else RunIdLines(path)
    validate = Run.model_validate_json
    for line, text in iter_lines(path):
        run: LeanRun | Run | None = lean_run(text)
        if run is None:
            with map_exceptions(LINE_ERRORS, (path, line)):
                run = validate(text)
        seen.add(run.run_id, line)
        yield line, run
    if not len(seen):
        raise no_runs_error(path)
