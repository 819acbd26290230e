"""``judgekit gate``: exit 1 when the candidate's results are worse than the baseline's."""

from __future__ import annotations

import json
import sys
from typing import Literal

import click
from rich.console import Console

from judgekit._util.input_paths import is_dir
from judgekit.cli.filter_options import filter_options
from judgekit.cli.number_types import FiniteFloatRange
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric, load_rubrics
from judgekit.gate.render import print_gate_report
from judgekit.gate.run import BatchNeeded, run_gate
from judgekit.store.run_filter import RunFilter

EXIT_GATE_SAYS_NO = 1


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
    type=FiniteFloatRange(0, 1, min_open=True, max_open=True),
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
    type=FiniteFloatRange(min=0),
    help="Largest rise of a task's mean cost allowed with its pass rate flat (0.2 = +20%).",
)
@click.option(
    "--turns-tolerance",
    default=0.2,
    show_default=True,
    type=FiniteFloatRange(min=0),
    help="Largest rise of a task's mean turns allowed with its pass rate flat.",
)
@filter_options(runs="both sides", batches="the baseline (a store reference)")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the table.")
def gate_command(
    baseline: str,
    candidate: str,
    rubric_refs: tuple[str, ...],
    alpha: float,
    correction: Literal["holm", "none"],
    cost_tolerance: float,
    turns_tolerance: float,
    only: RunFilter,
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

    --branch, --tag and --agent-version choose the baseline's batch when it is a store
    reference (the newest that matches); --suite compares one suite's runs on both sides.

    \b
    Example:
      judgekit gate --baseline results/main --candidate results/pr/results.jsonl
      judgekit gate --baseline latest:main --candidate results/pr --rubric goal_completion
    """
    rubrics: list[Rubric] = []
    for ref in rubric_refs:
        rubrics += load_rubrics(ref) if is_dir(ref) else [load_rubric(ref)]
    try:
        outcome = run_gate(
            baseline,
            candidate,
            rubrics,
            alpha=alpha,
            cost_tolerance=cost_tolerance,
            turns_tolerance=turns_tolerance,
            correction=correction,
            only=only,
        )
    except BatchNeeded as exc:
        raise click.UsageError(str(exc)) from None
    if as_json:
        click.echo(json.dumps(outcome.as_dict()))
    else:
        console = Console(highlight=False, emoji=False)
        print_gate_report(outcome.report, console, rubrics=outcome.rubrics)
    if not outcome.passed:
        sys.exit(EXIT_GATE_SAYS_NO)
