"""The options of ``judgekit run`` that pick its shard: ``--shard``, ``--shard-from-env``
and ``--shard-group``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def shard_options(command: F) -> F:
    """Add ``shard``, ``shard_from_env`` and ``shard_group`` to ``command``."""
    for option in reversed(
        (
            click.option(
                "--shard",
                metavar="I/N",
                help="Run only shard I of N (from 1) of the (task, trial) pairs; see the "
                "docs: Shard a run over machines.",
            ),
            click.option(
                "--shard-from-env",
                is_flag=True,
                help="Read the shard from a Kubernetes Indexed Job ($JOB_COMPLETION_INDEX "
                "with $JUDGEKIT_SHARD_COUNT) or a Slurm job array ($SLURM_ARRAY_TASK_ID "
                "with $SLURM_ARRAY_TASK_COUNT and $SLURM_ARRAY_TASK_MIN).",
            ),
            click.option(
                "--shard-group",
                help="The id the N shards share in the store (default: "
                "$JUDGEKIT_SHARD_GROUP, the Slurm array's or Kubernetes Job's id, or "
                "GitHub Actions' run id).",
            ),
        )
    ):
        command = option(command)
    return command
