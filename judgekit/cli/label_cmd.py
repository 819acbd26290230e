"""``judgekit label``: hand-label runs in the terminal, one key per run, blind to the judge."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click
from rich.console import Console

from judgekit._util.terminal_text import visible
from judgekit.cli.options import labels_dir_option, rubric_option, suites_option
from judgekit.formats.label import Label
from judgekit.formats.verdict import Verdict
from judgekit.labelling.answers import TerminalAnswers, answers_from_stdin
from judgekit.labelling.keys import scale_keys
from judgekit.labelling.sampling import STRATEGIES, Strategy
from judgekit.labelling.screen import Item, LabelScreen
from judgekit.labelling.session import OnLabel
from judgekit.labelling.session_setup import (
    LabellingRequest,
    LabellingSetup,
    label_session,
    set_up_labelling,
)


@click.command("label")
@click.argument("runs", type=click.Path(path_type=Path))
@rubric_option
@click.option("--labeler", required=True, help="Your name, recorded on every label.")
@labels_dir_option
@click.option(
    "--strategy",
    type=click.Choice(STRATEGIES),
    default="random",
    show_default=True,
    help="Which runs come first: random, stratified by the judge's verdict, judge "
    "disagreement first, lowest judge agreement first, or only the runs the judge abstained "
    "on (a selective promotion), least confident first.",
)
@click.option("--limit", type=click.IntRange(min=1), help="Label a sample of this many runs.")
@click.option(
    "--seed", default=0, show_default=True, help="Seed of the sample (keep it to resume)."
)
@click.option("--reveal", is_flag=True, help="Show the judge's verdict right after each label.")
@click.option(
    "--verdicts",
    "verdicts_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A verdicts.jsonl to use instead of the store's verdicts.",
)
@suites_option("Task suites, to show a task's input when a run does not record it.")
@click.option(
    "--queue",
    "team_queue",
    is_flag=True,
    help="Take runs one at a time from the rubric's team queue (LABELS_DIR/<rubric_id>."
    "queue.jsonl, shared with other labellers and judgekit view): none held by another.",
)
@click.option(
    "--double-code",
    type=click.FloatRange(0, 1),
    default=0.0,
    show_default=True,
    help="With --queue, when it starts the queue: the share of runs two labellers label, "
    "blind to each other.",
)
def label_command(
    runs: Path,
    rubric_ref: str,
    labeler: str,
    labels_dir: Path,
    strategy: Strategy,
    limit: int | None,
    seed: int,
    reveal: bool,
    verdicts_file: Path | None,
    tasks_path: Path | None,
    team_queue: bool,
    double_code: float,
) -> None:
    """Hand-label RUNS under a rubric: one run at a time, one key per label.

    RUNS is a runs file, a CSV of final answers or a folder holding runs.jsonl, as for judge.

    The judge's verdict is never shown before you label (--reveal shows it after).
    Labels are appended to LABELS_DIR/<rubric_id>.jsonl as you go; rerun the same command
    to resume. Each labelled run goes at once to the dev or the test side, whichever is
    short (LABELS_DIR/<rubric_id>.split.jsonl); with --reveal, a test label shown beside
    the judge's verdict is spent, agreeing or not: promote no longer counts it. With
    --queue, several labellers (here or in judgekit view) share the rubric's runs, none
    given a run another holds. Keys: the scale's keys (p/f, 1-5, a/b/t, ...), s skip,
    u undo, n note, ? help, q quit. Without a terminal, one answer per line is read from stdin.

    \b
    Example:
      judgekit label runs.jsonl --rubric goal_completion --labeler ana --strategy stratified --limit 40
    """
    request = LabellingRequest(
        runs=runs,
        rubric_ref=rubric_ref,
        labeler=labeler,
        labels_dir=labels_dir,
        strategy=strategy,
        limit=limit,
        seed=seed,
        reveal=reveal,
        verdicts_file=verdicts_file,
        tasks_path=tasks_path,
        queue=team_queue,
        double_code=double_code,
    )
    if double_code and not team_queue:
        raise click.UsageError("--double-code goes with --queue")
    setup = set_up_labelling(request, warn=_warn)
    rubric, plan, path = setup.rubric, setup.plan, setup.labels_file
    if strategy == "abstained":
        click.echo(
            f"{plan.sample_size} runs queued: their current verdict is abstained (least "
            "confident first)",
            err=True,
        )
    elif strategy != "random" and not setup.verdicts:
        click.echo(
            f"judgekit: warning: no verdicts for {rubric.id}; the {strategy} order falls back "
            "to a seeded shuffle (judge first, or pass --verdicts)",
            err=True,
        )
    answers = answers_from_stdin()
    in_terminal = isinstance(answers, TerminalAnswers)
    console = Console(highlight=False, emoji=False)
    screen = LabelScreen(console, rubric, scale_keys(rubric), clear=in_terminal)
    if plan.stale:
        screen.message(
            f"{len(plan.stale)} of your labels are stale (the run changed since you labelled "
            "it): they are shown again"
        )
    if not plan.to_label and setup.feed is None:
        screen.message(
            f"nothing to label: all {plan.sample_size} runs of the sample are labelled by "
            f"{labeler} in {path}",
            "green",
        )
        return
    outcome = label_session(
        setup, screen=screen, answers=answers, on_label=_split_as_labelled(setup)
    )
    if outcome is None:
        click.echo(f"interrupted: every label given is in {path}", err=True)
        sys.exit(130)
    click.echo(
        f"{outcome.labelled} labelled, {outcome.skipped} skipped this session; labels in {path}"
    )


def _warn(warning: str) -> None:
    """A warning about the labels file: it quotes the file, so it is shown visibly."""
    click.echo(f"judgekit: warning: {visible(warning, one_line=True)}", err=True)


def _split_as_labelled(setup: LabellingSetup) -> OnLabel:
    """Each new label's run goes to the dev or test side at once (the side that is short);
    a test label whose run's judge verdict was revealed and disagreed is spent."""
    from judgekit.calibration.split import assign_label

    def on_label(label: Label, item: Item, revealed: Sequence[Verdict]) -> None:
        assign_label(setup.rubric, setup.labels_file, label, run=item.run, revealed=revealed)

    return on_label
