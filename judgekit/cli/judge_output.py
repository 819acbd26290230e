"""What ``judgekit judge`` shows besides its summary: the progress bar on stderr (nothing
when --json or not a terminal) and the --dry-run plan."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from judgekit.cli.runs_file_hint import import_first_hint
from judgekit.judging.pipeline import JudgeRequest, read_judging_inputs

if TYPE_CHECKING:
    from rich.progress import Progress

__all__ = ["judging_progress", "print_dry_run"]

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

    with import_first_hint(request.runs):
        plan = dry_run(read_judging_inputs(request), samples=request.samples)
    if as_json:
        click.echo(json.dumps(dry_run_json(plan), ensure_ascii=False))
        return
    for line in dry_run_lines(plan):
        click.echo(line)
