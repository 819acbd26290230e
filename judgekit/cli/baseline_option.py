"""The ``--save-baseline`` option of run and grade: the file it opens and the line saying where
it wrote."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import click

from judgekit._util.atomic_files import atomic_writer

save_baseline_option = click.option(
    "--save-baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also copy results.jsonl here, as a baseline for `judgekit gate`.",
)


@contextmanager
def baseline_writer(path: Path | None) -> Iterator[IO[str] | None]:
    """The ``--save-baseline`` file (None without the option), opened before the command
    writes anything else, so a target that cannot be written stops it first; the file
    appears when the block ends without error, never half-written."""
    if path is None:
        yield None
        return
    with atomic_writer(path) as fh:
        yield fh


def echo_baseline_saved(path: Path | None) -> None:
    """Say where ``--save-baseline`` wrote (nothing without it), and what the file is for."""
    if path is not None:
        click.echo(
            f"saved the baseline {path}: gate a change against it with "
            f"judgekit gate --baseline {shlex.quote(str(path))} --candidate FOLDER"
        )
