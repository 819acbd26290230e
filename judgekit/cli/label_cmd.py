"""``judgekit label``: hand-label runs in the terminal, one key per run, blind to the judge."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path

import click
from rich.console import Console

from judgekit._util.terminal_text import visible
from judgekit.cli.options import labels_dir_option, rubric_option
from judgekit.formats.rubric_file import effective_rubric, load_rubric
from judgekit.formats.task import TaskSet
from judgekit.formats.task_files import load_task_files
from judgekit.formats.verdict import Verdict
from judgekit.formats.verdict_scores import ScaleCheck
from judgekit.labelling.answers import TerminalAnswers, answers_from_stdin
from judgekit.labelling.keys import scale_keys
from judgekit.labelling.labels_file import LabelWriter, labels_path, read_labels
from judgekit.labelling.plan import (
    latest_verdicts,
    plan_session,
    read_verdicts_file,
    runs_file_items,
)
from judgekit.labelling.sampling import STRATEGIES, Strategy
from judgekit.labelling.screen import LabelScreen
from judgekit.labelling.session import label_items


@click.command("label")
@click.argument("runs", type=click.Path(dir_okay=False, path_type=Path))
@rubric_option
@click.option("--labeler", required=True, help="Your name, recorded on every label.")
@labels_dir_option
@click.option(
    "--strategy",
    type=click.Choice(STRATEGIES),
    default="random",
    show_default=True,
    help="Which runs come first: random, stratified by the judge's verdict, judge "
    "disagreement first, or lowest judge agreement first.",
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
@click.option(
    "--tasks",
    "tasks_path",
    type=click.Path(path_type=Path),
    help="Task suites, to show a task's input when a run does not record it.",
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
) -> None:
    """Hand-label RUNS under a rubric: one run at a time, one key per label.

    The judge's verdict is never shown before you label (--reveal shows it after).
    Labels are appended to LABELS_DIR/<rubric_id>.jsonl as you go; rerun the same command
    to resume. Keys: the scale's keys (p/f, 1-5, a/b/t, ...), s skip, u undo, n note,
    ? help, q quit. Without a terminal, one answer per line is read from stdin.

    \b
    Example:
      judgekit label runs.jsonl --rubric goal_completion --labeler ana --strategy stratified --limit 40
    """
    rubric = load_rubric(rubric_ref)
    # Labelling shows a task's input: the suite is read as data, importing nothing.
    tasks: TaskSet | None = (
        load_task_files(tasks_path, resolve_code=False) if tasks_path is not None else None
    )
    items = runs_file_items(runs, tasks)
    path = labels_path(labels_dir, rubric.id)
    log = read_labels(path, rubric)
    for warning in log.warnings:
        click.echo(f"judgekit: warning: {visible(warning, one_line=True)}", err=True)
    verdicts: dict[str, list[Verdict]] = {}
    if verdicts_file is not None:
        scales = ScaleCheck([rubric], variant=effective_rubric)
        verdicts = latest_verdicts(read_verdicts_file(verdicts_file, scales), rubric.id)
    elif strategy != "random" or reveal:
        from judgekit.store import open_store  # SQLAlchemy loads only when verdicts are used

        with open_store() as store:
            verdicts = latest_verdicts(store.verdicts(rubric.id), rubric.id)
    if strategy != "random" and not verdicts:
        click.echo(
            f"judgekit: warning: no verdicts for {rubric.id}; the {strategy} order falls back "
            "to a seeded shuffle (judge first, or pass --verdicts)",
            err=True,
        )
    mine = log.by_labeler(labeler)
    plan = plan_session(items, mine, verdicts, strategy=strategy, seed=seed, limit=limit)
    answers = answers_from_stdin()
    in_terminal = isinstance(answers, TerminalAnswers)
    console = Console(highlight=False, emoji=False)
    screen = LabelScreen(console, rubric, scale_keys(rubric), clear=in_terminal)
    if plan.stale:
        screen.message(
            f"{len(plan.stale)} of your labels are stale (the run changed since you labelled "
            "it): they are shown again"
        )
    if not plan.to_label:
        screen.message(
            f"nothing to label: all {plan.sample_size} runs of the sample are labelled by "
            f"{labeler} in {path}",
            "green",
        )
        return
    with ExitStack() as stack:
        writer = stack.enter_context(LabelWriter(path))
        if isinstance(answers, TerminalAnswers):
            stack.enter_context(answers.raw_mode())
        try:
            outcome = label_items(
                plan.to_label,
                screen=screen,
                answers=answers,
                writer=writer,
                labeler=labeler,
                mine=mine,
                stale=plan.stale,
                already_labelled=plan.already_labelled,
                verdicts=verdicts,
                reveal=reveal,
                pause_after_reveal=in_terminal,
            )
        except KeyboardInterrupt:
            outcome = None
    if outcome is None:
        click.echo(f"interrupted: every label given is in {path}", err=True)
        sys.exit(130)
    click.echo(
        f"{outcome.labelled} labelled, {outcome.skipped} skipped this session; labels in {path}"
    )
