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
from typing import Annotated, Any, ClassVar, Literal

import msgspec

from judgekit._util.jsonl import LINE_ERRORS, iter_lines
from judgekit.errors import map_exceptions
from judgekit.formats.lean_cache import LeanCache
from judgekit.formats.run import Run, RunIdLines, StopReason, no_runs_error

_NotNegative = msgspec.Meta(ge=0)
_NULL = msgspec.Raw(b"null")
_EMPTY_OBJECT = msgspec.Raw(b"{}")
# Per call: name, arguments' JSON text, error, raw_arguments, arguments_error.
CallsKey = tuple[tuple[str, bytes, str | None, str | None, str | None], ...]


class LeanCall(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, dict=True):
    """The fields of :class:`judgekit.formats.run.ToolCall`. ``args`` is decoded by
    :func:`lean_run`, which keeps their JSON text too (for :attr:`LeanRun.calls_key`)."""

    name: str
    args_json: msgspec.Raw = msgspec.field(default=_EMPTY_OBJECT, name="args")
    # What the tool answered: checked as JSON, never decoded (no grader reads it).
    result_json: msgspec.Raw = msgspec.field(default=_NULL, name="result")
    error: str | None = None
    id: str | None = None
    raw_arguments: str | None = None
    arguments_error: str | None = None
    executed_by: Literal["agent", "provider"] = "agent"

    @property
    def args(self) -> dict[str, Any]:
        args: dict[str, Any] = self.__dict__["args"]
        return args


class LeanUsage(msgspec.Struct, kw_only=True):
    """:class:`judgekit.formats.run.Usage`: other keys are allowed (and read, not kept)."""

    input_tokens: Annotated[int, _NotNegative] = 0
    output_tokens: Annotated[int, _NotNegative] = 0


class LeanRun(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, dict=True):
    """The fields of :class:`judgekit.formats.run.Run` that grading reads, with the same
    checks or stricter. ``metadata`` and tool results are checked as JSON, not decoded;
    states, mostly the same from run to run, are decoded once per distinct text when
    :func:`lean_run` is given a cache.

    ``calls_key`` and ``states_key`` name what the graders read of the run's calls and
    states (each argument by its JSON text, each state by its cache serial): two runs with
    equal keys are graded alike by Truth, Path and State (:mod:`judgekit.graders.memo`).
    """

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
    initial_state_json: msgspec.Raw = msgspec.field(default=_NULL, name="initial_state")
    final_state_json: msgspec.Raw = msgspec.field(default=_NULL, name="final_state")
    violations: list[str] = []
    metadata_json: msgspec.Raw = msgspec.field(default=_EMPTY_OBJECT, name="metadata")

    # Every value was decoded from JSON: graders may compare values by their JSON encoding.
    json_values: ClassVar[bool] = True

    @property
    def completed(self) -> bool:
        return self.stop_reason in (None, "completed")

    @property
    def initial_state(self) -> dict[str, Any] | None:
        state: dict[str, Any] | None = self.__dict__["initial_state"]
        return state

    @property
    def final_state(self) -> dict[str, Any] | None:
        state: dict[str, Any] | None = self.__dict__["final_state"]
        return state

    @property
    def calls_key(self) -> CallsKey:
        return tuple(
            [
                (c.name, bytes(c.args_json), c.error, c.raw_arguments, c.arguments_error)
                for c in self.tool_calls
            ]
        )

    @property
    def calls_text_size(self) -> int:
        """The bytes of argument text :attr:`calls_key` holds."""
        return sum([len(call.args_json) for call in self.tool_calls])

    @property
    def states_key(self) -> tuple[int, int]:
        key: tuple[int, int] = self.__dict__["states_key"]
        return key


_DECODER = msgspec.json.Decoder(LeanRun)
_ARGS_DECODER = msgspec.json.Decoder(dict[str, Any])
_OPEN_BRACE = ord("{")


def lean_run(text: str | bytes, *, cache: LeanCache | None = None) -> LeanRun | None:
    """The run on one line, or ``None`` when the line must be read by ``Run`` instead.

    ``cache`` keeps decoded states by their JSON text across calls (give the lines of one
    file one cache); they are shared, so never change them.
    """
    cache = LeanCache() if cache is None else cache
    try:
        run = _DECODER.decode(text)
        if memoryview(run.metadata_json)[0] != _OPEN_BRACE:
            return None  # metadata must be an object
        initial_serial, initial = cache.initial.read(run.initial_state_json)
        final_serial, final = cache.final.read(run.final_state_json)
        for call in run.tool_calls:
            call.__dict__["args"] = _ARGS_DECODER.decode(call.args_json)
    except (msgspec.DecodeError, UnicodeDecodeError):  # msgspec.ValidationError is a DecodeError
        return None
    fields = run.__dict__
    fields["initial_state"], fields["final_state"] = initial, final
    fields["states_key"] = (initial_serial, final_serial)
    return run


def iter_unique_lean_runs(
    path: str | Path, *, seen: RunIdLines | None = None
) -> Iterator[tuple[int, LeanRun | Run]]:
    """:func:`judgekit.formats.run.iter_unique_runs`, each line read by :func:`lean_run`
    when it can be and by ``Run`` otherwise: the same runs, the same errors, faster."""
    seen = seen if seen is not None else RunIdLines(path)
    validate = Run.model_validate_json
    cache = LeanCache()
    for line, text in iter_lines(path):
        run: LeanRun | Run | None = lean_run(text, cache=cache)
        if run is None:
            with map_exceptions(LINE_ERRORS, (path, line)):
                run = validate(text)
        seen.add(run.run_id, line)
        yield line, run
    if not len(seen):
        raise no_runs_error(path)
