"""Splitting a run's (task, trial) pairs into shards, run on separate machines.

The partition is round-robin over the pairs sorted by (suite, task id, trial): pair k of
that order (from 0) belongs to shard ``k mod N + 1``. It depends only on the suite and
``--trials``, so every machine computes the same one; every pair is in exactly one shard,
and the shards differ in size by at most one pair. The trials of one task spread over the
shards, so a slow task slows every shard a little rather than one a lot.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from judgekit._util.input_paths import exists
from judgekit.errors import ConfigError
from judgekit.formats.shard import (
    SHARD_FILE,
    SHARD_GROUP_TAG,
    SHARD_RUNS_TAG,
    SHARDS_TAG,
    Shard,
    ShardManifest,
    load_shard_manifest,
    parse_shard,
)
from judgekit.formats.suite import suite_sha256
from judgekit.formats.task import Task, TaskSet
from judgekit.trials.shard_env import EngineShard, shard_from_env
from judgekit.trials.trial_files import RUNS

GROUP_ENV: Final = "JUDGEKIT_SHARD_GROUP"
BATCH_KEY_PREFIX: Final = "shards:"

Pair = tuple[Task, int]


def shard_pairs(tasks: TaskSet, trials: int, shard: Shard | None) -> list[Pair]:
    """The (task, trial) pairs of ``shard`` (all of them without one), in the suite's order."""
    pairs = [(task, number) for task in tasks for number in range(1, trials + 1)]
    if shard is None:
        return pairs
    ordered = sorted(range(len(pairs)), key=lambda i: _sort_key(pairs[i]))
    mine = {i for position, i in enumerate(ordered) if position % shard.count == shard.index - 1}
    return [pair for i, pair in enumerate(pairs) if i in mine]


def _sort_key(pair: Pair) -> tuple[str, str, int]:
    task, number = pair
    return (task.suite or "", task.id, number)


def shard_group(explicit: str | None, engine: str | None = None) -> str | None:
    """The run group the shards share: ``--shard-group``, else ``$JUDGEKIT_SHARD_GROUP``,
    else the batch engine's (``engine``: a Slurm array's job id, a Kubernetes Job's uid),
    else GitHub Actions' run id (the same in every job of one workflow run, and kept when
    a failed job is re-run, so a shard run again lands beside the others)."""
    if explicit:
        return explicit
    if os.environ.get(GROUP_ENV):
        return os.environ[GROUP_ENV]
    if engine:
        return engine
    run_id = os.environ.get("GITHUB_RUN_ID")
    return f"github-{run_id}" if run_id else None


def shard_batch_key(
    group: str, shard: Shard, trials: int, suites: Sequence[str], suite_digest: str
) -> str:
    """The store batch every shard of one run records into: the same on every machine for
    the same suite, another for a shard run on a stale one (whose batch then lacks it)."""
    what = json.dumps([group, shard.count, trials, sorted(suites), suite_digest])
    return BATCH_KEY_PREFIX + hashlib.sha256(what.encode()).hexdigest()


@dataclass(frozen=True)
class ShardPlan:
    """What ``judgekit run --shard`` settled: the shard, its group, its batch, its size."""

    shard: Shard | None
    group: str | None
    batch_key: str | None  # None: the batch of the runs file, as unsharded runs record
    pairs: int
    total: int = 0  # the pairs of all shards together

    @property
    def label(self) -> str | None:
        """The shard ("I/N") each run it records is labelled with in the store."""
        return None if self.shard is None else str(self.shard)

    def tags(self) -> dict[str, str]:
        """The batch's tags that let a reader of the store tell a whole run from a part."""
        if self.shard is None or self.group is None:
            return {}
        return {
            SHARD_GROUP_TAG: self.group,
            SHARDS_TAG: str(self.shard.count),
            SHARD_RUNS_TAG: str(self.total),
        }


def plan_shard(
    text: str | None,
    explicit_group: str | None,
    tasks: TaskSet,
    trials: int,
    *,
    store: bool,
    baseline: bool = False,
    from_env: bool = False,
) -> ShardPlan:
    """The shard of ``--shard I/N``, or with ``from_env`` of the batch engine's variables
    (:mod:`judgekit.trials.shard_env`); recorded in the store, the shards need a group to
    meet in one batch (without one, each machine could not tell this run from another).
    A shard is a part of a run, so it is never saved as a baseline (``baseline``)."""
    engine = None
    if from_env:
        if text is not None:
            raise ConfigError(
                "--shard-from-env reads the shard from the environment: pass it or --shard "
                f"I/N, not both (got --shard {text})"
            )
        engine = shard_from_env(os.environ)
        text = str(engine.shard)
    if text is not None and baseline:
        raise ConfigError(
            "--save-baseline saves a whole run's results, and a shard is a part: gate the "
            "folder of all the shards' --out folders as the baseline instead"
        )
    if text is None:
        if explicit_group:
            raise ConfigError("--shard-group needs --shard I/N")
        return ShardPlan(None, None, None, len(tasks) * trials)
    shard = parse_shard(text)
    group = shard_group(explicit_group, None if engine is None else engine.group)
    if group is None and store:
        _refuse_without_group(shard, engine)
    suites = sorted({task.suite or "" for task in tasks})
    digest = suite_sha256(tasks)
    key = None if group is None else shard_batch_key(group, shard, trials, suites, digest)
    pairs = len(shard_pairs(tasks, trials, shard))
    return ShardPlan(shard, group, key, pairs, total=len(tasks) * trials)


def _refuse_without_group(shard: Shard, engine: EngineShard | None) -> None:
    if engine is None:
        raise ConfigError(
            f"--shard {shard} records in the store, where the shards meet by a group id: "
            f"pass --shard-group ID (the same on every shard) or set ${GROUP_ENV} "
            "(on GitHub Actions the workflow run id is used), or pass --no-store"
        )
    raise ConfigError(
        f"shard {shard} of a {engine.engine} records in the store, where the shards meet by "
        f"a group id: {engine.missing_group()}, or pass --shard-group ID (the same on every "
        "shard), or --no-store"
    )


def shard_manifest(
    tasks: TaskSet, trials: int, shard: Shard, group: str | None, batch_key: str | None
) -> ShardManifest:
    """The ``shard.json`` of ``shard`` while it runs: which shard of which run and suite,
    what it owes; the digests of its files come once it finished."""
    digest = suite_sha256(tasks)
    return ShardManifest(
        shard=shard.index,
        of=shard.count,
        group=group,
        trials=trials,
        pairs=len(shard_pairs(tasks, trials, shard)),
        batch_key=batch_key,
        tasks=len(tasks),
        run_pairs=len(tasks) * trials,
        suite_sha256=digest,
        graded_sha256=digest,
    )


def check_resumed_shard(out_dir: Path, manifest: ShardManifest | None) -> None:
    """A folder resumed must hold the same shard of the same run and suite (or no shard,
    unsharded): its finished trials would not match the ones this run owes."""
    if not exists(out_dir / RUNS):
        return
    path = out_dir / SHARD_FILE
    kept = load_shard_manifest(path) if exists(path) else None
    if kept is not None and manifest is not None and kept.unfinished() == manifest:
        return
    if kept is None and manifest is None:
        return
    if kept is None:
        raise ConfigError(f"{out_dir} holds an unsharded run: resume it without --shard")
    if manifest is None:
        raise ConfigError(f"{out_dir} holds shard {kept.label} of a run: resume it with --shard")
    if kept.suite_sha256 is None:
        raise ConfigError(
            f"{path} was written by an older judgekit, without the digests that prove a shard "
            f"whole: rerun shard {manifest.label} into an empty --out"
        )
    run = (kept.shard, kept.of, kept.group, kept.trials)
    if run == (manifest.shard, manifest.of, manifest.group, manifest.trials):
        raise ConfigError(
            f"{path} is {_said(kept)} of another suite ({kept.tasks} tasks, sha256 "
            f"{kept.suite_sha256[:12]}…; this one: {manifest.tasks} tasks, "
            f"{(manifest.suite_sha256 or '')[:12]}…): cannot resume it on this suite; rerun "
            "the shard into an empty --out"
        )
    raise ConfigError(f"{path} is {_said(kept)}; cannot resume it as {_said(manifest)}")


def _said(manifest: ShardManifest) -> str:
    group = "no group" if manifest.group is None else f"group {manifest.group!r}"
    return f"shard {manifest.label} ({manifest.trials} trials, {group})"
