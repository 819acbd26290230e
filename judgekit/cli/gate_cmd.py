"""``judgekit gate``: exit 1 when the candidate's results are worse than the baseline's."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import click
from rich import box
from rich.console import Console
from rich.table import Table

from judgekit._util.input_paths import is_dir, is_file
from judgekit._util.terminal_text import visible_markup, visible_text
from judgekit.formats.grade import Grade
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric, load_rubrics
from judgekit.gate.compare import (
    Comparison,
    GateReport,
    SideSummary,
    TaskResult,
    compare_results,
    load_results,
    results_path,
)

if TYPE_CHECKING:
    from judgekit.gate.rubrics import RubricResult
    from judgekit.store import Store

EXIT_GATE_SAYS_NO = 1
DASH = "—"
_STORE_REFERENCE = re.compile(r"^(batch|latest):")


@dataclass
class Side:
    """One side of the gate: its grades, and its batch in the store when known."""

    name: str
    grades: list[Grade]
    batch_id: int | None


def _side_from(reference: str, store: Store | None) -> Side:
    """A results file or folder, or a store reference (batch:ID, latest:BRANCH)."""
    if _STORE_REFERENCE.match(reference):
        assert store is not None
        batch = store.batch_with_grades(reference)
        return Side(f"{reference} (batch {batch.id})", store.grades(batch.id), batch.id)
    grades = list(load_results(reference))
    batch_id = None
    if store is not None:
        from judgekit.store.recording import runs_batch_key

        runs = results_path(reference).parent / "runs.jsonl"
        if is_file(runs):
            found = store.find_batch(runs_batch_key(runs))
            batch_id = None if found is None else found.id
    return Side(reference, grades, batch_id)


@contextmanager
def _store_if_needed(references: list[str], rubrics: bool) -> Iterator[Store | None]:
    """The store, opened only when a side is a store reference or rubrics are compared."""
    if rubrics or any(_STORE_REFERENCE.match(r) for r in references):
        from judgekit.store import open_store

        with open_store() as store:
            yield store
    else:
        yield None


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
        table.add_row(visible_text(task.task_id, one_line=True), *_cells(task), _verdict_cell(task))
    table.add_section()
    table.add_row("all runs", *_cells(report.suite), DASH)
    return table


def print_gate_report(
    report: GateReport, console: Console, *, rubrics: list[RubricResult] | None = None
) -> None:
    """The table, each task's reasons and notes, the rubrics, then the verdict line.

    Messages are never wrapped, so a CI log can be searched for them. Task ids and reasons
    are data, shown visibly on one line each (:mod:`judgekit._util.terminal_text`).
    """
    console.print(_table(report))
    for task in report.tasks:
        for reason in task.reasons:
            console.print(
                f"FAIL {visible_markup(task.task_id)}: {visible_markup(reason)}",
                soft_wrap=True,
                emoji=False,
            )
        for note in task.notes:
            console.print(
                f"note {visible_markup(task.task_id)}: {visible_markup(note)}",
                soft_wrap=True,
                emoji=False,
            )
    failing_rubrics = []
    for rubric in rubrics or []:
        tag = {"fail": "FAIL", "pass": "ok", "info": "note"}[rubric.verdict]
        console.print(f"{tag} rubric {visible_markup(rubric.reason)}", soft_wrap=True, emoji=False)
        if rubric.verdict == "fail":
            failing_rubrics.append(rubric.rubric_id)
    if failing_rubrics and report.passed:
        console.print(
            f"gate: [red]FAIL[/red]: {len(failing_rubrics)} promoted rubric"
            f"{'s' if len(failing_rubrics) > 1 else ''} dropped: "
            f"{visible_markup(', '.join(failing_rubrics))}",
            soft_wrap=True,
            emoji=False,
        )
        return
    console.print(_verdict_line(report), soft_wrap=True, emoji=False)


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


@click.command("gate")
@click.option(
    "--baseline",
    required=True,
    help="The reference: a results.jsonl file or a folder holding one, or from the store "
    "batch:ID or latest:BRANCH (the newest graded batch of that branch).",
)
@click.option(
    "--candidate",
    required=True,
    help="The results to judge: a results.jsonl file, a folder holding one, or batch:ID.",
)
@click.option(
    "--rubric",
    "rubric_refs",
    multiple=True,
    help="Also compare this rubric's pass rate between the two batches (a file, folder or "
    "id in rubrics/; repeatable). Promoted rubrics gate; others are reported only.",
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
    baseline: str,
    candidate: str,
    rubric_refs: tuple[str, ...],
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

    With --rubric, each promoted binary rubric's pass rate is compared too (its verdicts
    in the two batches, Holm-corrected across rubrics); a draft rubric is reported, never
    gating. A results folder's batch is the one of the runs.jsonl beside it.

    \b
    Example:
      judgekit gate --baseline results/main --candidate results/pr/results.jsonl
      judgekit gate --baseline latest:main --candidate results/pr --rubric goal_completion
    """
    rubrics = []
    for ref in rubric_refs:
        rubrics += load_rubrics(ref) if is_dir(ref) else [load_rubric(ref)]
    with _store_if_needed([baseline, candidate], bool(rubrics)) as store:
        base, cand = _side_from(baseline, store), _side_from(candidate, store)
        report = compare_results(
            base.grades,
            cand.grades,
            alpha=alpha,
            cost_tolerance=cost_tolerance,
            turns_tolerance=turns_tolerance,
            correction=correction,
        )
        rubric_results = _compare_rubrics(store, rubrics, base, cand, alpha, correction)
    passed = report.passed and not any(r.verdict == "fail" for r in rubric_results)
    if as_json:
        # model_dump_json writes an infinite change (a mean up from 0) as null, valid JSON.
        data = json.loads(report.model_dump_json())
        data["passed"] = passed
        data["rubrics"] = [r.model_dump() for r in rubric_results]
        click.echo(json.dumps(data))
    else:
        console = Console(highlight=False, emoji=False)
        print_gate_report(report, console, rubrics=rubric_results)
    if not passed:
        sys.exit(EXIT_GATE_SAYS_NO)


def _compare_rubrics(
    store: Store | None,
    rubrics: list[Rubric],
    base: Side,
    cand: Side,
    alpha: float,
    correction: Literal["holm", "none"],
) -> list[RubricResult]:
    if not rubrics:
        return []
    assert store is not None
    missing = [side.name for side in (base, cand) if side.batch_id is None]
    if missing:
        raise click.UsageError(
            "--rubric compares verdicts between two batches of the store, and "
            f"{' and '.join(missing)} has none: give batch:ID or latest:BRANCH, or a results "
            "folder whose runs.jsonl was judged with the store on"
        )
    from judgekit.gate.rubrics import compare_rubrics

    assert base.batch_id is not None and cand.batch_id is not None
    return compare_rubrics(
        store,
        rubrics,
        baseline_batch=base.batch_id,
        candidate_batch=cand.batch_id,
        alpha=alpha,
        correction=correction,
    )
