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

from judgekit._util.hit_rate import HitRate
from judgekit.formats.grade import GraderResult
from judgekit.formats.run_lean import CallsKey, LeanRun
from judgekit.formats.task import Task
from judgekit.graders.path import grade_path
from judgekit.graders.run_view import RunView
from judgekit.graders.state import grade_state
from judgekit.graders.truth import grade_truth

Grader = Callable[[RunView, Task], GraderResult | None]

_LIMIT: Final = 4096  # results kept per grader; past that its table starts again ...
_MAX_KEY_BYTES: Final = 16 * 1024 * 1024  # ... or past this much argument text in its keys
_NOT_YET: Any = object()


class GradingMemo:
    """The graders' results by task and content, for the runs of one stream."""

    def __init__(self, limit: int = _LIMIT) -> None:
        # Tasks are named by id(); holding each keeps its id from being reused meanwhile.
        self._tasks: dict[int, Task] = {}
        self._truth = _Results(grade_truth, limit)
        self._path = _Results(grade_path, limit)
        self._state = _Results(grade_state, limit)

    def grade(
        self, run: RunView, task: Task
    ) -> tuple[GraderResult | None, GraderResult | None, GraderResult | None]:
        """Truth, Path and State of ``run`` against ``task``."""
        if type(run) is not LeanRun:
            return grade_truth(run, task), grade_path(run, task), grade_state(run, task)
        task_key = id(task)
        if task_key not in self._tasks:
            self._tasks[task_key] = task
        calls: CallsKey | None = None
        size = 0
        if self._truth.worth_a_look():
            calls, size = run.calls_key, run.calls_text_size
            truth = self._truth.result((task_key, calls), run, task, size)
        else:
            truth = grade_truth(run, task)
        if self._path.worth_a_look():
            if calls is None:
                calls, size = run.calls_key, run.calls_text_size
            turns = run.turns if task.max_turns is not None else None  # read only then
            path = self._path.result((task_key, calls, turns), run, task, size)
        else:
            path = grade_path(run, task)
        if self._state.worth_a_look():
            state = self._state.result((task_key, run.states_key), run, task, 0)
        else:
            state = grade_state(run, task)
        return truth, path, state


class _Results:
    """One grader's results by key, consulted while it pays."""

    def __init__(self, grader: Grader, limit: int) -> None:
        self._grader = grader
        self._limit = limit
        self._table: dict[Hashable, GraderResult | None] = {}
        self._key_bytes = 0
        self._rate = HitRate()
        self.worth_a_look = self._rate.worth_a_look

    def result(
        self, key: Hashable, run: RunView, task: Task, key_bytes: int
    ) -> GraderResult | None:
        """The result for ``key`` (whose texts hold ``key_bytes``), graded if not kept."""
        found = self._table.get(key, _NOT_YET)
        self._rate.looked(found is not _NOT_YET)
        if found is _NOT_YET:
            found = self._grader(run, task)
            if len(self._table) >= self._limit or self._key_bytes > _MAX_KEY_BYTES:
                self._table.clear()
                self._key_bytes = 0
            self._table[key] = found
            self._key_bytes += key_bytes
        return found  # type: ignore[no-any-return]

    def __len__(self) -> int:
        return len(self._table)
