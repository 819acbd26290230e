"""What ``judgekit judge`` shows: the progress bar on stderr (nothing when --json or not a
terminal), the --dry-run plan, and the outcome — the summary or its --json object, the runs
not judged, those the budget left and the unscored verdicts that fail the judging (exit 1)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from judgekit.cli.runs_file_hint import import_first_hint
from judgekit.cli.store_output import recorded_line, store_json
from judgekit.judging.pipeline import JudgeRequest, read_judging_inputs

if TYPE_CHECKING:
    from rich.progress import Progress

    from judgekit.judging.judge import JudgeTally
    from judgekit.judging.pipeline import JudgingSession, PreparedJudging
    from judgekit.labelling.review import ReviewQueued

__all__ = [
    "EXIT_JUDGING_FAILED",
    "interrupted",
    "judging_progress",
    "print_dry_run",
    "print_outcome",
]

# Some runs got no answer from the provider or were left by the --max-cost budget (rerun to
# finish), or too many verdicts are unscored (the judge's answers could not be read): the
# verdicts that exist are written.
EXIT_JUDGING_FAILED = 1

# What makes rich treat a stream that is not a TTY as a terminal.
_TERMINAL_VARIABLES = ("FORCE_COLOR", "TTY_COMPATIBLE")


class _Bar:
    """The progress bar on stderr, or nothing."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self._progress = progress
        self._task = progress.add_task("judging", total=total) if progress is not None else None

    def advance(self) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task)


@contextmanager
def judging_progress(total: int, *, show: bool) -> Iterator[_Bar]:
    """The bar on stderr, off when --json or stderr is not a terminal (a log gets no bar and
    no blank line); rich is loaded only to draw one."""
    if not show or not (sys.stderr.isatty() or any(map(os.environ.get, _TERMINAL_VARIABLES))):
        yield _Bar(None, total)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    console = Console(stderr=True)
    shown = console.is_terminal
    with Progress(*columns, console=console, transient=True, disable=not shown) as progress:
        yield _Bar(progress, total)


def print_dry_run(request: JudgeRequest, *, as_json: bool) -> None:
    """--dry-run: read every input, render the prompts, print; no provider, no key needed."""
    from judgekit.judging.dry_run import dry_run, dry_run_json, dry_run_lines
    from judgekit.judging.jury_dry_run import jury_dry_run, jury_dry_run_json, jury_dry_run_lines

    with import_first_hint(request.runs):
        inputs = read_judging_inputs(request)
        if inputs.rubric.judge.jury is not None:
            jury = jury_dry_run(inputs, samples=request.samples)
            report, lines = jury_dry_run_json(jury), jury_dry_run_lines(jury)
        else:
            plan = dry_run(inputs, samples=request.samples)
            report, lines = dry_run_json(plan), dry_run_lines(plan)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
        return
    for line in lines:
        click.echo(line)


def print_outcome(
    tally: JudgeTally,
    prepared: PreparedJudging,
    session: JudgingSession,
    *,
    as_json: bool,
    max_unscored: float,
    review: ReviewQueued | None = None,
) -> None:
    """The summary (or the --json object) with what --review queued, then the runs not
    judged and the unscored verdicts past --max-unscored on stderr, exit 1 if either."""
    from judgekit._util.terminal_text import visible
    from judgekit.judging.judge_summary import (
        not_judged_lines,
        over_budget_line,
        sample_json,
        sample_line,
        set_apart_line,
        summary_json,
        summary_lines,
        unscored_failure,
    )

    rubric, out, recorded = prepared.rubric, session.verdicts_file, session.recorded()
    endpoint, earlier = prepared.endpoint, session.earlier_verdicts_file
    failure = unscored_failure(tally, max_unscored)
    if as_json:
        report = summary_json(
            tally,
            rubric,
            prepared.version,
            endpoint=endpoint,
            verdicts_file=out,
            earlier_file=earlier,
            store=store_json(recorded),
        )
        report["sample"] = sample_json(
            tally, prepared.sample, picked=len(prepared.run_ids), window=prepared.window
        )
        report["review"] = review.as_json() if review is not None else None
        report["max_unscored"] = max_unscored
        report["unscored_failed"] = failure is not None
        click.echo(json.dumps(report))
    else:
        if prepared.sample is not None:
            click.echo(sample_line(tally, prepared.sample, prepared.window))
        for line in summary_lines(tally, rubric, prepared.version):
            click.echo(line)
        apart = set_apart_line(tally, earlier)
        if apart is not None:
            click.echo(apart)
        if out.exists():  # stopped before its first verdict, a judging writes no file
            click.echo(f"wrote {out}")
        if recorded is not None:
            click.echo(recorded_line(recorded.verdicts, "verdicts", recorded))
        if review is not None:
            click.echo(review.line())
    if tally.not_judged:
        # A reason may quote what the server said: shown, never interpreted by the terminal.
        for line in not_judged_lines(tally, rubric.judge.model, endpoint):
            click.echo(visible(line, one_line=True), err=True)
    over_budget = over_budget_line(tally, len(prepared.run_ids))
    if over_budget is not None:
        click.echo(over_budget, err=True)
    if failure is not None:
        click.echo(f"judging failed: {failure}; the verdicts are in {out}", err=True)
    if tally.not_judged or over_budget is not None or failure is not None:
        raise SystemExit(EXIT_JUDGING_FAILED)


def interrupted(finished: str) -> int:
    """Say what Ctrl-C left (``finished``: where the finished verdicts are); exit code 130."""
    click.echo(
        f"interrupted: {finished}; rerun the same command to finish (it asks only for the runs "
        "not judged yet)",
        err=True,
    )
    return 130
