"""Options several commands share, defined once so they read and behave the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

tasks_option = click.option(
    "--tasks",
    "tasks_path",
    required=True,
    type=click.Path(path_type=Path),
    help="A task suite YAML file, or a folder of them.",
)
rubric_option = click.option(
    "--rubric", "rubric_ref", required=True, help="A rubric file, or the id of one in rubrics/."
)
labels_dir_option = click.option(
    "--labels-dir",
    default="labels",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of <rubric_id>.jsonl label files.",
)
save_baseline_option = click.option(
    "--save-baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also copy results.jsonl here, as a baseline for `judgekit gate`.",
)
reasons_option = click.option(
    "--reasons", is_flag=True, help="Print the first failing reason of each failing run."
)
json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object instead of the tables."
)


def k_option(default_text: str) -> Callable[[F], F]:
    """``--k``, with what the command uses when it is not given."""
    return click.option(
        "--k",
        "k",
        type=click.IntRange(min=1),
        help=f"k of pass@k and pass^k (default: {default_text}).",
    )
