"""A grade as a light row, and its results.jsonl line written without pydantic.

Building a pydantic :class:`~judgekit.formats.grade.Grade` (validating fields the run
already validated) and dumping it cost about a tenth of grading a run. ``grade_file``
keeps each grade as a :class:`GradeRow` (the same fields, as a tuple) and writes its line
with :func:`grade_json`, which gives exactly the text ``Grade.model_dump_json`` gives: the
same keys in the same order, strings escaped as pydantic-core escapes them (JSON's short
escapes, ``\\u00XX`` for other controls, the rest as UTF-8), floats as their ``repr``.
Anything it is not sure to write the same way (a float in exponent form, which pydantic
writes as ``1e-6`` and Python as ``1e-06``; a lone surrogate; a value of another type)
is written by pydantic from the equivalent ``Grade``.
"""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any, NamedTuple, cast

from judgekit.formats.grade import Grade, GraderResult
from judgekit.formats.run import StopReason


def _first_failure_rule() -> Callable[[Any], str | None]:
    """Grade's own rule for its first failing reason, so a row can never tell another."""
    rule = cast(property, vars(Grade)["first_failure"]).fget
    assert rule is not None
    return rule


_FIRST_FAILURE = _first_failure_rule()


class GradeRow(NamedTuple):
    """The fields of :class:`~judgekit.formats.grade.Grade`, in its order, unvalidated:
    made by grading only from values the run's reader has checked."""

    run_id: str
    task_id: str
    trial: int | None
    passed: bool
    truth: GraderResult | None
    path: GraderResult | None
    state: GraderResult | None
    answer: GraderResult | None
    claimed_success: bool | None
    violations: list[str]
    turns: int | None
    cost_usd: float | None
    stop_reason: StopReason | None
    tool_calls: int
    tool_errors: int

    @property
    def first_failure(self) -> str | None:
        """:attr:`Grade.first_failure <judgekit.formats.grade.Grade.first_failure>`."""
        return _FIRST_FAILURE(self)

    def grade(self) -> Grade:
        return Grade(**self._asdict())


class _Unsure(Exception):
    """A value grade_json does not write itself: pydantic writes the line."""


def grade_json(grade: GradeRow) -> str:
    """``grade.grade().model_dump_json()``, the same text, several times faster."""
    try:
        return _line(grade)
    except _Unsure:
        return grade.grade().model_dump_json()


def _line(g: GradeRow) -> str:
    return (
        f'{{"run_id":{_text(g.run_id)},"task_id":{_text(g.task_id)},'
        f'"trial":{_optional_int(g.trial)},"passed":{_bool(g.passed)},'
        f'"truth":{_result(g.truth)},"path":{_result(g.path)},'
        f'"state":{_result(g.state)},"answer":{_result(g.answer)},'
        f'"claimed_success":{_optional_bool(g.claimed_success)},'
        f'"violations":[{",".join([_text(v) for v in g.violations])}],'
        f'"turns":{_optional_int(g.turns)},"cost_usd":{_optional_float(g.cost_usd)},'
        f'"stop_reason":{"null" if g.stop_reason is None else _text(g.stop_reason)},'
        f'"tool_calls":{_int(g.tool_calls)},"tool_errors":{_int(g.tool_errors)}}}'
    )


def _text(value: object) -> str:
    if type(value) is not str:
        raise _Unsure
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: pydantic says what it makes of it
            raise _Unsure from None
    return encode_basestring(value)


def _bool(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    raise _Unsure


def _optional_bool(value: object) -> str:
    return "null" if value is None else _bool(value)


def _int(value: object) -> str:
    if type(value) is not int:
        raise _Unsure
    return str(value)


def _optional_int(value: object) -> str:
    return "null" if value is None else _int(value)


def _optional_float(value: object) -> str:
    if value is None:
        return "null"
    if type(value) is not float:
        raise _Unsure
    text = repr(value)
    if "e" in text or "n" in text:  # exponent form (and inf, nan): pydantic's own spelling
        raise _Unsure
    return text


def _result(result: GraderResult | None) -> str:
    if result is None:
        return "null"
    return f'{{"passed":{_bool(result.passed)},"reason":{_text(result.reason)}}}'
