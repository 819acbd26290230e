"""The per-task grading table printed in the terminal."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from judgekit.report.grade_summary import GraderTally, GradeSummary


def _fraction(tally: GraderTally) -> str:
    if tally.graded == 0:
        return "—"
    style = "green" if tally.passed == tally.graded else "red"
    return f"[{style}]{tally.passed}/{tally.graded}[/{style}]"


def print_grade_table(summary: GradeSummary, console: Console, *, show_reasons: bool) -> None:
    """Runs, Truth, Path, State and all three per task; then the failing reasons on request.

    A dash means the task does not configure that grader.
    """
    table = Table(
        title="Grades per task",
        title_justify="left",
        caption="false claims: the answer claims success but the run failed; — not configured",
        caption_justify="left",
    )
    table.add_column("task", no_wrap=True)
    for name in ("runs", "Truth", "Path", "State", "all", "false claims"):
        table.add_column(name, justify="right", no_wrap=True)
    for task in sorted(summary.tasks.values(), key=lambda s: s.task_id):
        overall = GraderTally(graded=task.runs, passed=task.passed)
        table.add_row(
            escape(task.task_id),
            str(task.runs),
            *(_fraction(task.graders[name]) for name in ("truth", "path", "state")),
            _fraction(overall),
            str(task.claimed_but_failed),
        )
    console.print(table)
    console.print(
        f"{summary.passed}/{summary.runs} runs passed; "
        f"{len(summary.failing_tasks())} of {len(summary.tasks)} tasks have failing runs"
    )
    if not show_reasons:
        return
    for task in sorted(summary.tasks.values(), key=lambda s: s.task_id):
        for run_id, reason in task.failures:
            console.print(
                f"[bold]{escape(run_id)}[/bold] {escape(reason)}", highlight=False, soft_wrap=True
            )
        if task.failures_not_kept:
            console.print(f"{escape(task.task_id)}: and {task.failures_not_kept} more failing runs")
