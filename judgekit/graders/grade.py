"""Grade runs: Truth, Path, State and Answer together, one run at a time or a whole file streamed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from judgekit.errors import DataError
from judgekit.formats.grade import Grade
from judgekit.formats.task import Task, TaskSet
from judgekit.graders.answer import grade_answer
from judgekit.graders.claims import claims_success
from judgekit.graders.path import grade_path
from judgekit.graders.run_view import RunView
from judgekit.graders.state import grade_state
from judgekit.graders.truth import grade_truth


def grade_run(run: RunView, task: Task) -> Grade:
    """Grade one run against its task.

    ``passed`` is true only when every configured grader passed, the run completed and it
    broke no rule.
    """
    truth = grade_truth(run, task)
    path = grade_path(run, task)
    state = grade_state(run, task)
    answer = grade_answer(run, task)
    passed = (
        run.completed
        and not run.violations
        and (truth is None or truth.passed)
        and (path is None or path.passed)
        and (state is None or state.passed)
        and (answer is None or answer.passed)
    )
    calls = run.tool_calls
    return Grade(
        run_id=run.run_id,
        task_id=run.task_id,
        trial=run.trial,
        passed=passed,
        truth=truth,
        path=path,
        state=state,
        answer=answer,
        claimed_success=claims_success(run.final_answer),
        violations=list(run.violations),
        turns=run.turns,
        cost_usd=run.cost_usd,
        stop_reason=run.stop_reason,
        tool_calls=len(calls),
        tool_errors=len(calls) - [call.error for call in calls].count(None),
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
    for item in runs:
        line, run = item if isinstance(item, tuple) else (None, item)
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
        yield grade_run(run, task)
