"""Grade runs: Truth, Path, State and Answer together, one run at a time or a whole file streamed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from judgekit.errors import DataError
from judgekit.formats.grade import Grade
from judgekit.formats.task import Task, TaskSet
from judgekit.graders.answer import grade_answer
from judgekit.graders.claims import claims_success
from judgekit.graders.grade_rows import GradeRow
from judgekit.graders.path import grade_path
from judgekit.graders.run_view import RunView
from judgekit.graders.state import grade_state
from judgekit.graders.truth import grade_truth


def grade_run(run: RunView, task: Task) -> Grade:
    """Grade one run against its task.

    ``passed`` is true only when every configured grader passed, the run completed and it
    broke no rule.
    """
    return grade_row(run, task).grade()


def grade_row(run: RunView, task: Task) -> GradeRow:
    """:func:`grade_run`'s grade as a light row (no pydantic validation): what grade_file
    tallies and writes (:mod:`judgekit.graders.grade_rows`)."""
    truth, path, state = grade_truth(run, task), grade_path(run, task), grade_state(run, task)
    answer = grade_answer(run, task)
    passed = (
        run.completed
        and not run.violations
        # A grader with nothing to check (passed None) neither passes nor fails the run.
        and (truth is None or truth.passed is not False)
        and (path is None or path.passed is not False)
        and (state is None or state.passed is not False)
        and (answer is None or answer.passed is not False)
    )
    calls = run.tool_calls
    return GradeRow(
        run.run_id,
        run.task_id if run.task_id is not None else task.id,
        run.trial,
        passed,
        truth,
        path,
        state,
        answer,
        claims_success(run.final_answer),
        list(run.violations),
        run.turns,
        run.cost_usd,
        run.stop_reason,
        len(calls),
        len(calls) - [call.error for call in calls].count(None),
    )


def grade_runs(
    runs: Iterable[RunView] | Iterable[tuple[int, RunView]],
    tasks: TaskSet,
    *,
    skip_unknown: bool = False,
    source: str | None = None,
) -> Iterator[Grade]:
    """Grade a stream of runs (or ``(line, run)`` pairs, for error messages naming the line).

    A run whose task id is not in ``tasks`` raises :class:`DataError` unless
    ``skip_unknown`` is set, in which case it is passed over.
    """
    for row in grade_rows(runs, tasks, skip_unknown=skip_unknown, source=source):
        yield row.grade()


def grade_rows(
    runs: Iterable[RunView] | Iterable[tuple[int, RunView]],
    tasks: TaskSet,
    *,
    skip_unknown: bool = False,
    source: str | None = None,
) -> Iterator[GradeRow]:
    """:func:`grade_runs`, each grade as a :class:`GradeRow`."""
    for item in runs:
        line, run = item if isinstance(item, tuple) else (None, item)
        if run.task_id is None:  # no task to grade against, whatever --skip-unknown says
            raise DataError(
                f"run {run.run_id!r} has no task_id: grading checks a run against its task; "
                "add task_id to the run, or judge it (judgekit judge) instead",
                path=source,
                line=line,
                field="task_id",
            )
        task = tasks.get(run.task_id)
        if task is None:
            if skip_unknown:
                continue
            raise DataError(
                f"unknown task id {run.task_id!r} (not in the loaded suites; "
                "pass --skip-unknown to pass such runs over)",
                path=source,
                line=line,
                field="task_id",
            )
        yield grade_row(run, task)
