"""The runs of a sharded run: a folder of shard folders, each with its ``runs.jsonl``.

Read as the unsharded run would be: every shard present once, of one run and one suite, its
files those it finished with (:func:`judgekit.formats.shard.shard_folders`), each run id
once across all shards, and each shard holding as many runs as the trials it owes — the
checks ``gate`` makes of the shards' results. Each line is read as grading reads it
(:func:`judgekit.formats.run.read_run_line`).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from judgekit._util.jsonl import iter_lines
from judgekit.errors import DataError
from judgekit.formats.run import Run, no_runs_error, read_run_line
from judgekit.formats.run_lean import LeanRun, lean_run
from judgekit.formats.shard import (
    SHARD_RUNS,
    ShardManifest,
    ShardRunIds,
    check_shard_complete,
    shard_folders,
)

RunOrder = Callable[[LeanRun | Run], Any]


def iter_shard_runs(
    folder: str | Path, *, order: RunOrder | None = None
) -> Iterator[tuple[Path, int, LeanRun | Run]]:
    """``(file, line, run)`` for every run of every shard in ``folder``: shard by shard, or,
    given ``order`` (a sort key each shard's runs follow, such as the suite's order of
    (task, trial)), merged in that order, so that the shards read as the unsharded file
    (memory holds one run per shard).

    A folder holding no shard, a missing, repeated or foreign shard, a malformed line, a run
    id seen before (in any shard) and a shard with fewer or more runs than it owes raise a
    :class:`DataError` naming the file and line, when it is met.
    """
    root = Path(folder)
    shards = shard_folders(root)
    if not shards:
        raise DataError(
            "no shard folders here: give a runs file, or a folder of the --out folders of "
            "`judgekit run --shard I/N`",
            path=root,
        )
    each = [_shard_runs(folder / SHARD_RUNS, manifest) for folder, manifest in shards]
    merged = chain(*each) if order is None else heapq.merge(*each, key=lambda got: order(got[2]))
    seen = ShardRunIds()
    for file, line, run in merged:
        seen.add(run.run_id, file, line)
        yield file, line, run
    if not len(seen):
        raise no_runs_error(root)


def _shard_runs(file: Path, manifest: ShardManifest) -> Iterator[tuple[Path, int, LeanRun | Run]]:
    """One shard's runs; at its end, a shard holding other than the trials it owes is refused."""
    count = 0
    for line, text in iter_lines(file):
        count += 1
        yield file, line, read_run_line(text, (file, line), lean=lean_run)
    check_shard_complete(manifest, count, file)
