"""``judgekit gate``: exit 1 when the candidate's results are worse than the baseline's."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

import click
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from judgekit.gate import (
    Comparison,
    GateReport,
    SideSummary,
    TaskResult,
    compare_results,
    load_results,
)

EXIT_GATE_SAYS_NO = 1
DASH = "—"


def _side(side: SideSummary | None) -> str:
    return DASH if side is None else f"{side.rate:.2f} {side.passes}/{side.n}"


def _p(value: float | None) -> str:
    if value is None:
        return DASH
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _change(change: float | None) -> str:
    if change is None:
        return DASH
    return "from 0" if change == float("inf") else f"{change:+.0%}"


def _cells(row: Comparison) -> list[str]:
    """The figures of a row, from the baseline's pass rate to the turns change."""
    return [
        _side(row.baseline),
        _side(row.candidate),
        _p(row.p_value),
        _change(row.cost_change),
        _change(row.turns_change),
    ]


def _verdict_cell(task: TaskResult) -> str:
    if task.status == "compared":
        return "[red]FAIL[/red]" if task.verdict == "fail" else "[green]ok[/green]"
    return "[red]removed[/red]" if task.status == "removed" else "added"


def _table(report: GateReport) -> Table:
    # No vertical rules and two-space gaps: with run counts of up to three digits, task ids
    # of about 20 characters fit in 80 columns; longer ids fold, never the verdict.
    table = Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
        title="Gate: candidate against baseline, per task",
        title_justify="left",
        caption=f"p: one-sided test of a pass-rate drop (alpha {report.alpha:g}, "
        f"correction {report.correction}); "
        "cost and turns: change of the mean",
        caption_justify="left",
    )
    table.add_column("task", overflow="fold", min_width=8)
    for name in ("baseline", "candidate", "p", "cost Δ", "turns Δ", "verdict"):
        table.add_column(name, justify="right", no_wrap=True)
    for task in report.tasks:
        table.add_row(escape(task.task_id), *_cells(task), _verdict_cell(task))
    table.add_section()
    table.add_row("all runs", *_cells(report.suite), DASH)
    return table


def print_gate_report(report: GateReport, console: Console) -> None:
    """The table, each task's reasons and notes, then the verdict line.

    Messages are never wrapped, so a CI log can be searched for them.
    """
    console.print(_table(report))
    for task in report.tasks:
        for reason in task.reasons:
            console.print(f"FAIL {escape(task.task_id)}: {escape(reason)}", soft_wrap=True)
        for note in task.notes:
            console.print(f"note {escape(task.task_id)}: {escape(note)}", soft_wrap=True)
    console.print(_verdict_line(report), soft_wrap=True)


def _verdict_line(report: GateReport) -> str:
    if not report.passed:
        failing = ", ".join(escape(t) for t in report.failing_tasks)
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


@click.command("gate")
@click.option(
    "--baseline",
    required=True,
    type=click.Path(path_type=Path),
    help="The reference results: a results.jsonl file or a folder holding one.",
)
@click.option(
    "--candidate",
    required=True,
    type=click.Path(path_type=Path),
    help="The results to judge: a results.jsonl file or a folder holding one.",
)
@click.option(
    "--alpha",
    default=0.05,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    help="Chance of a false pass-rate alarm anywhere in the suite (with --correction holm).",
)
@click.option(
    "--correction",
    type=click.Choice(["holm", "none"]),
    default="holm",
    show_default=True,
    help="holm: control false alarms across all tasks; none: test each task at --alpha.",
)
@click.option(
    "--cost-tolerance",
    default=0.2,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Largest rise of a task's mean cost allowed with its pass rate flat (0.2 = +20%).",
)
@click.option(
    "--turns-tolerance",
    default=0.2,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Largest rise of a task's mean turns allowed with its pass rate flat.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the table.")
def gate_command(
    baseline: Path,
    candidate: Path,
    alpha: float,
    correction: Literal["holm", "none"],
    cost_tolerance: float,
    turns_tolerance: float,
    as_json: bool,
) -> None:
    """Compare two result sets task by task; exit 1 when the candidate is worse.

    A task fails when its pass rate drops by more than noise (one-sided two-proportion
    tests, Holm-corrected across tasks at --alpha), when its mean cost or turns rise beyond the tolerance while its
    pass rate is flat, or when it is missing from the candidate. Exit 0 when the gate
    passes, 1 when it says no, 2 on bad input.

    \b
    Example:
      judgekit gate --baseline results/main --candidate results/pr/results.jsonl
    """
    report = compare_results(
        load_results(baseline),
        load_results(candidate),
        alpha=alpha,
        cost_tolerance=cost_tolerance,
        turns_tolerance=turns_tolerance,
        correction=correction,
    )
    if as_json:
        # model_dump_json writes an infinite change (a mean up from 0) as null, valid JSON.
        click.echo(report.model_dump_json())
    else:
        print_gate_report(report, Console(highlight=False))
    if not report.passed:
        sys.exit(EXIT_GATE_SAYS_NO)
