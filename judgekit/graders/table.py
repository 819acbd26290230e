"""The per-task report printed in the terminal: reliability first, then cost and route."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from judgekit._util.number_format import (
    DASH,
    UNDEFINED,
    cost,
    interval,
    mean_count,
    percent,
    rate,
    whole,
)
from judgekit._util.terminal_text import (
    first_column_room,
    visible_markup,
    visible_name,
    visible_text,
)
from judgekit.graders.summary import (
    GraderTally,
    GradeSummary,
    TaskSummary,
    mean_over_tasks,
    reliability,
)
from judgekit.graders.table_render import QuickTable

# The tasks left out of the suite's mean are named up to this many; the JSON lists them all.
MAX_NAMED_LEFT_OUT = 10


def _failed_fraction(tally: GraderTally) -> str:
    """Runs the grader failed of those it graded: the section counts what failed; runs it
    had nothing to check are said apart, never counted as passed."""
    unchecked = tally.nothing_to_check
    if tally.graded == 0:
        return DASH if unchecked == 0 else f"[yellow]{NOTHING_SHOWN}[/yellow]"
    failed = tally.graded - tally.passed
    style = "red" if failed else "green"
    fraction = f"[{style}]{failed}/{tally.graded}[/{style}]"
    return fraction if unchecked == 0 else f"{fraction} [yellow]+{unchecked}[/yellow]"


# A What-failed cell of a task on whose runs a grader had nothing to check (+N: on N runs
# besides those graded): short, so the task ids keep their room.
NOTHING_SHOWN = "unchecked"


Cells = list[str | Text]


def _table(title: str, columns: list[str], rows: list[tuple[str, Cells]], width: int) -> QuickTable:
    """A table of one row per task: the figures keep their width and never fold; a task id
    too long for what is left wraps after its ``-``, ``_`` or ``.``. Drawn by
    :class:`QuickTable`: rich's output, in time linear in the rows."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("task", overflow="fold")
    for name in columns:
        table.add_column(name, justify="right", no_wrap=True)
    figures = [
        [name, *_distinct(cells)]
        for name, *cells in zip(columns, *(c for _, c in rows), strict=True)
    ]
    # Two edge spaces, and three between columns (padding, rule, padding).
    room = first_column_room(width - 2, figures, gap=3)
    for task_id, cells in rows:
        table.add_row(visible_name(task_id, room), *cells)
    return QuickTable(table)


def _distinct(cells: list[str | Text]) -> list[str | Text]:
    """Each different cell once (the widest is the same): figures repeat down a column."""
    seen: dict[object, str | Text] = {}
    for cell in cells:
        seen.setdefault(cell if isinstance(cell, str) else (cell.plain, str(cell.style)), cell)
    return list(seen.values())


def print_grade_table(
    summary: GradeSummary, console: Console, *, show_reasons: bool, k: int | None = None
) -> None:
    """Per task: pass@1 with its Wilson 95% interval, pass@k, pass^k and each grader; then
    turns, cost, tool errors and stop reasons; then the suite headline and failing tasks.

    Task ids, run ids and reasons (which quote the agent's arguments) are data: shown
    visibly (:mod:`judgekit._util.terminal_text`), one line each, never as markup or emoji codes."""
    chosen = k if k is not None else summary.default_k()
    tasks = sorted(summary.tasks.values(), key=lambda s: s.task_id)
    for table in _task_tables(tasks, chosen, console.width):
        console.print(table)
    _print_suite_lines(summary, console, tasks=tasks, k=chosen)
    if show_reasons:
        _print_failures(tasks, console)


def _at_k_columns(k: int) -> list[str]:
    """The pass@k and pass^k columns, none at k = 1 (both equal pass@1 there)."""
    return [f"pass@{k}", f"pass^{k}"] if k > 1 else []


def _shown_graders(tasks: list[TaskSummary]) -> list[str]:
    """The graders the What failed table shows: Answer only when some run was graded on it."""
    shown = ["Truth", "Path", "State"]
    if any(task.graders["answer"].graded for task in tasks):
        shown.append("Answer")
    return shown


def _task_tables(tasks: list[TaskSummary], chosen: int, width: int) -> tuple[QuickTable, ...]:
    """The three tables, one row per task: reliability, what failed, cost per run. The
    Answer column appears only when some run was graded on it; at k = 1 pass@k and pass^k
    are pass@1 itself, so only pass@1 is shown."""
    shown = [name.lower() for name in _shown_graders(tasks)]
    cells = [_task_cells(task, chosen, shown) for task in tasks]
    ids = [task.task_id for task in tasks]
    return (
        _table(
            "Reliability per task",
            ["runs", "pass@1", "95% CI", *_at_k_columns(chosen)],
            [(task_id, row[0]) for task_id, row in zip(ids, cells, strict=True)],
            width,
        ),
        _table(
            "What failed",
            [name.capitalize() for name in shown] + ["claims", "refused", "stopped"],
            [(task_id, row[1]) for task_id, row in zip(ids, cells, strict=True)],
            width,
        ),
        # Two-line headers: the figures are narrow, and the task ids keep the room.
        _table(
            "Cost per run",
            ["turns\nmean", "turns\nworst", "cost $\nmean", "cost $\nworst"],
            [(task_id, row[2]) for task_id, row in zip(ids, cells, strict=True)],
            width,
        ),
    )


def _task_cells(task: TaskSummary, chosen: int, shown: list[str]) -> tuple[Cells, Cells, Cells]:
    """A task's figures in each table: reliability, what failed, cost per run."""
    stats = reliability(task.runs, task.passed, chosen)
    ci = stats["pass_at_1_ci"]
    early = ", ".join(
        f"{reason} {count}"
        for reason, count in sorted(task.stop_reasons.items())
        if reason != "completed"
    )
    at_k = [rate(stats["pass_at_k"]), rate(stats["pass_hat_k"])] if chosen > 1 else []
    return (
        [str(task.runs), rate(stats["pass_at_1"]), DASH if ci is None else interval(*ci), *at_k],
        [
            *(_failed_fraction(task.graders[grader]) for grader in shown),
            str(task.claimed_but_failed),
            percent(task.tool_error_rate, decimals=0),
            visible_text(early or "0", one_line=True),
        ],
        [
            mean_count(task.turns.mean),
            whole(task.turns.worst),
            cost(task.cost.mean),
            cost(task.cost.worst),
        ],
    )


def _print_suite_lines(
    summary: GradeSummary, console: Console, *, tasks: list[TaskSummary], k: int
) -> None:
    """The suite's headline (pooled pass@1, then pass@k and pass^k as means over tasks),
    the legend of the tables, and the failing tasks."""
    headline = reliability(summary.runs, summary.passed, 1)
    ci = headline["pass_at_1_ci"]
    console.print(
        f"suite: {summary.passed}/{summary.runs} runs passed, pass@1 "
        f"{rate(headline['pass_at_1'])} (95% CI {DASH if ci is None else interval(*ci)})",
        highlight=False,
    )
    console.print(
        suite_mean_line(mean_over_tasks(tasks, k)), highlight=False, soft_wrap=True, emoji=False
    )
    unchecked = any(t.graders[name].nothing_to_check for t in tasks for name in t.graders)
    console.print(
        f"{', '.join(_shown_graders(tasks))}: runs failed / runs graded; "
        "claims: failed runs whose answer claims success; "
        "refused: share of tool calls refused, expected or not; — not configured"
        + (
            "; unchecked, +N: runs with nothing to check, no tool call made or expected"
            if unchecked
            else ""
        ),
        highlight=False,
        soft_wrap=True,
    )
    failing = sorted(summary.failing_tasks())
    console.print(
        f"failing tasks ({len(failing)} of {len(tasks)}): "
        f"{visible_markup(', '.join(failing)) or 'none'}",
        highlight=False,
        soft_wrap=True,
        emoji=False,
    )


def suite_mean_line(mean: dict[str, Any]) -> str:
    """The suite's pass@k and pass^k as means over tasks (:func:`mean_over_tasks`), saying
    which tasks have too few runs to count, or why both are undefined (markup-safe)."""
    k, counted, left_out = mean["k"], mean["tasks"], mean["left_out"]
    if counted == 0:
        why = f"every task has fewer than {k} runs" if left_out else "no tasks"
        return f"suite, mean over tasks: pass@{k} and pass^{k} {UNDEFINED} ({why})"
    total = counted + len(left_out)
    over = f"{counted} of {total} tasks" if left_out else f"{counted} task{'s' * (counted > 1)}"
    line = (
        f"suite, mean over {over}: pass@{k} {rate(mean['pass_at_k'])}, "
        f"pass^{k} {rate(mean['pass_hat_k'])}"
    )
    if left_out:
        named = ", ".join(left_out[:MAX_NAMED_LEFT_OUT])
        more = len(left_out) - MAX_NAMED_LEFT_OUT
        line += f"; left out, fewer than {k} runs: {visible_markup(named)}"
        line += f" and {more} more" if more > 0 else ""
    return line


def _print_failures(tasks: list[TaskSummary], console: Console) -> None:
    """Each failing run's first reason, and how many more failing runs were not kept."""
    for task in tasks:
        for run_id, reason in task.failures:
            console.print(
                f"[bold]{visible_markup(run_id)}[/bold] {visible_markup(reason)}",
                highlight=False,
                soft_wrap=True,
                emoji=False,
            )
        if task.failures_not_kept:
            console.print(
                f"{visible_markup(task.task_id)}: and {task.failures_not_kept} more failing runs",
                emoji=False,
            )
