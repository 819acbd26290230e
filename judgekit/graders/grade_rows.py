"""A grade as a light row: what grading tallies, made into a pydantic
:class:`~judgekit.formats.grade.Grade` where one is wanted (a results.jsonl line)."""

from __future__ import annotations

from collections.abc import Callable
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
