"""Grading into a shard's folder: one shard regraded in place keeps its ``shard.json`` true
(the digest of its new results, the suite they were graded by); nothing else is graded into
a shard's folder, nor into a folder of shards (its results would sit beside them)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from judgekit._util.file_digest import file_sha256
from judgekit._util.input_paths import exists, is_dir, is_file
from judgekit.errors import ConfigError
from judgekit.formats.shard import (
    SHARD_FILE,
    SHARD_RESULTS,
    SHARD_RUNS,
    check_shard_manifest,
    load_shard_manifest,
    verify_shard_files,
    write_shard_manifest,
)
from judgekit.formats.suite import TaskSet, suite_sha256

__all__ = ["shard_output"]


@contextmanager
def shard_output(runs_path: str | Path, out_dir: str | Path, tasks: TaskSet) -> Iterator[None]:
    """Around grading ``runs_path`` into ``out_dir``: refuse an ``out_dir`` that is the
    folder of shards graded, or a shard's folder other runs are graded into; for a shard's
    own runs (checked to be those it finished with), rewrite its ``shard.json`` once the
    results are written."""
    runs, out = Path(runs_path), Path(out_dir)
    if is_dir(runs) and _same(runs, out):
        raise ConfigError(
            f"--out {out} is the folder of shards graded: its results would sit beside the "
            "shards and be part of none; choose another --out"
        )
    path = out / SHARD_FILE
    if not is_file(path):
        yield
        return
    manifest = load_shard_manifest(path)
    if is_dir(runs) or not _same(runs, out / SHARD_RUNS):
        raise ConfigError(
            f"--out {out} is the folder of shard {manifest.label} ({path}): grade only its own "
            f"{SHARD_RUNS} into it, or choose another --out"
        )
    check_shard_manifest(manifest, path)
    verify_shard_files(out, manifest, names=(SHARD_RUNS,))
    yield
    graded = {
        "results_sha256": file_sha256(out / SHARD_RESULTS),
        "graded_sha256": suite_sha256(tasks),
    }
    write_shard_manifest(out, manifest.model_copy(update=graded))


def _same(one: Path, other: Path) -> bool:
    """Whether two paths name one file or folder (through links and spellings)."""
    try:
        return exists(one) and exists(other) and os.path.samefile(one, other)
    except OSError:
        return False
