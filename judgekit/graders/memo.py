"""Results of Truth, Path and State for contents graded before, within one stream of runs.

Each of the three graders is a pure function of the task and of part of the run: Truth of
the tool calls' names, arguments, errors and raw arguments; Path of those and the turns;
State of the initial and final states. The lean reader names those parts by exact text
(:attr:`judgekit.formats.run_lean.LeanRun.calls_key` and ``states_key``), so a run whose
parts were graded before gets the very result grading it again would give — the runs of one
task mostly repeat the same calls and end in the same few worlds. Results are shared, never
changed. Runs read by the pydantic model are graded as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Final

from judgekit.formats.grade import GraderResult
from judgekit.formats.run_lean import LeanRun
from judgekit.formats.task import Task
from judgekit.graders.path import grade_path
from judgekit.graders.run_view import RunView
from judgekit.graders.state import grade_state
from judgekit.graders.truth import grade_truth

Grader = Callable[[RunView, Task], GraderResult | None]

_LIMIT: Final = 4096  # results kept per grader; past that its table starts again
_NOT_YET: Any = object()


class GradingMemo:
    """The graders' results by task and content, for the runs of one stream."""

    def __init__(self, limit: int = _LIMIT) -> None:
        self._limit = limit
        # Tasks are named by id(); holding each keeps its id from being reused meanwhile.
        self._tasks: dict[int, Task] = {}
        self._truth: dict[Hashable, GraderResult | None] = {}
        self._path: dict[Hashable, GraderResult | None] = {}
        self._state: dict[Hashable, GraderResult | None] = {}

    def grade(
        self, run: RunView, task: Task
    ) -> tuple[GraderResult | None, GraderResult | None, GraderResult | None]:
        """Truth, Path and State of ``run`` against ``task``."""
        if type(run) is not LeanRun:
            return grade_truth(run, task), grade_path(run, task), grade_state(run, task)
        task_key = id(task)
        if task_key not in self._tasks:
            self._tasks[task_key] = task
        calls = run.calls_key
        turns = run.turns if task.max_turns is not None else None  # Path reads them only then
        return (
            self._result(self._truth, (task_key, calls), grade_truth, run, task),
            self._result(self._path, (task_key, calls, turns), grade_path, run, task),
            self._result(self._state, (task_key, run.states_key), grade_state, run, task),
        )

    def _result(
        self,
        table: dict[Hashable, GraderResult | None],
        key: Hashable,
        grader: Grader,
        run: RunView,
        task: Task,
    ) -> GraderResult | None:
        found = table.get(key, _NOT_YET)
        if found is _NOT_YET:
            found = grader(run, task)
            if len(table) >= self._limit:
                table.clear()
            table[key] = found
        return found  # type: ignore[no-any-return]
