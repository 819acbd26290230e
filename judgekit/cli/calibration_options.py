"""What ``judgekit calibrate`` and ``judgekit promote`` share: where the verdicts and labels
are, and how a warning about the labels file is printed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from judgekit._util.terminal_text import visible

F = TypeVar("F", bound=Callable[..., Any])


def calibration_options(func: F) -> F:
    """The options ``calibrate`` and ``promote`` share: where the verdicts and labels are."""
    options = [
        click.option(
            "--rubric",
            "rubric_ref",
            required=True,
            help="A rubric file, or the id of one in rubrics/.",
        ),
        click.option(
            "--verdicts",
            "verdicts_file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="A verdicts.jsonl to use instead of the store's verdicts.",
        ),
        click.option(
            "--labels",
            "labels_file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="The labels file (default: labels/<rubric_id>.jsonl).",
        ),
        click.option(
            "--runs",
            "runs_files",
            multiple=True,
            type=click.Path(dir_okay=False, path_type=Path),
            help="runs.jsonl files to check labels against for staleness (repeatable).",
        ),
        click.option(
            "--tasks",
            "tasks_path",
            type=click.Path(path_type=Path),
            help="Task suites, when the labels were given with `judgekit label --tasks`.",
        ),
        click.option(
            "--interval",
            "interval_method",
            type=click.Choice(["analytic", "bootstrap"]),
            default="analytic",
            show_default=True,
            help="How the kappa interval is computed.",
        ),
        click.option(
            "--new-split",
            is_flag=True,
            help="Start a new split when the split file is missing after the labels were "
            "split before (restoring it is better): every test label it assigns is spent.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


split_option = click.option(
    "--split",
    "measure_on",
    type=click.Choice(["dev", "test", "all"]),
    default="dev",
    show_default=True,
    help="Which labelled runs to measure and show: dev (read and tune on these), test (held "
    "out for promote: every test label measured is marked spent and no longer counts for "
    "promotion, agreeing or not) or all.",
)


def warn_about_labels(warning: str) -> None:
    """Print what the labels file says is wrong with it (a torn last line) on stderr."""
    click.echo(f"judgekit: warning: {visible(warning, one_line=True)}", err=True)
