"""The gate in the terminal: the per-task table, each task's reasons and notes, the
rubrics, then one verdict line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.table import Table

from judgekit._util.number_format import DASH, p_value, rate, relative_change, setting
from judgekit._util.terminal_text import first_column_room, visible_markup, visible_name
from judgekit.gate.compare import Comparison, GateReport, SideSummary, TaskResult

if TYPE_CHECKING:
    from judgekit.gate.rubrics import RubricResult

__all__ = ["print_gate_report"]


def print_gate_report(
    report: GateReport, console: Console, *, rubrics: list[RubricResult] | None = None
) -> None:
    """The table, each task's reasons and notes, the rubrics, then the verdict line.

    Messages are never wrapped, so a CI log can be searched for them. Task ids and reasons
    are data, shown visibly on one line each (:mod:`judgekit._util.terminal_text`).
    """
    console.print(_table(report, console.width))
    for task in report.tasks:
        for reason in task.reasons:
            _line(console, f"FAIL {visible_markup(task.task_id)}: {visible_markup(reason)}")
        for note in task.notes:
            _line(console, f"note {visible_markup(task.task_id)}: {visible_markup(note)}")
    failing_rubrics = []
    for rubric in rubrics or []:
        tag = {"fail": "FAIL", "pass": "ok", "info": "note"}[rubric.verdict]
        _line(console, f"{tag} rubric {visible_markup(rubric.reason)}")
        if rubric.verdict == "fail":
            failing_rubrics.append(rubric.rubric_id)
    if failing_rubrics and report.passed:
        _line(
            console,
            f"gate: [red]FAIL[/red]: {len(failing_rubrics)} promoted rubric"
            f"{'s' if len(failing_rubrics) > 1 else ''} dropped: "
            f"{visible_markup(', '.join(failing_rubrics))}",
        )
        return
    _line(console, _verdict_line(report))


def _line(console: Console, text: str) -> None:
    console.print(text, soft_wrap=True, emoji=False)


def _verdict_line(report: GateReport) -> str:
    if not report.passed:
        failing = ", ".join(visible_markup(t) for t in report.failing_tasks)
        return (
            f"gate: [red]FAIL[/red]: {len(report.failing_tasks)} of {len(report.tasks)} "
            f"tasks failed: {failing}"
        )
    compared = sum(t.status == "compared" for t in report.tasks)
    added = len(report.tasks) - compared
    also = f"; {added} added" if added else ""
    return (
        f"gate: [green]pass[/green]: {compared} tasks compared, none worse than the baseline{also}"
    )


def _table(report: GateReport, width: int) -> Table:
    # No vertical rules and two-space gaps: with run counts of up to three digits, task ids
    # of about 20 characters fit in 80 columns; a longer id wraps after its `-`, `_` or `.`,
    # and the figures are never cut.
    table = Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
        title="Gate: candidate against baseline, per task",
        title_justify="left",
        caption=f"p: one-sided test of a pass-rate drop (alpha {setting(report.alpha)}, "
        f"correction {report.correction}); "
        "cost and turns: change of the mean",
        caption_justify="left",
    )
    headers = ("baseline", "candidate", "p", "cost Δ", "turns Δ", "verdict")
    table.add_column("task", overflow="fold", min_width=8)
    for name in headers:
        table.add_column(name, justify="right", no_wrap=True)
    rows = [[*_cells(task), _verdict_cell(task)] for task in report.tasks]
    suite = [*_cells(report.suite), DASH]
    room = first_column_room(
        width, [[h, *cells] for h, *cells in zip(headers, suite, *rows, strict=True)]
    )
    for task, cells in zip(report.tasks, rows, strict=True):
        table.add_row(visible_name(task.task_id, room), *cells)
    table.add_section()
    table.add_row("all runs", *suite)
    return table


def _side(side: SideSummary | None) -> str:
    return DASH if side is None else f"{rate(side.rate)} {side.passes}/{side.n}"


def _cells(row: Comparison) -> list[str]:
    """The figures of a row, from the baseline's pass rate to the turns change."""
    return [
        _side(row.baseline),
        _side(row.candidate),
        p_value(row.p_value),
        relative_change(row.cost_change),
        relative_change(row.turns_change),
    ]


def _verdict_cell(task: TaskResult) -> str:
    if task.status == "compared":
        return "[red]FAIL[/red]" if task.verdict == "fail" else "[green]ok[/green]"
    return "[red]removed[/red]" if task.status == "removed" else "added"
