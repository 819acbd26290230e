"""Shards of one run: ``--shard I/N`` and the ``shard.json`` each shard's folder holds.

A sharded run is N folders, one per ``judgekit run --shard I/N`` (I counts from 1). Each
holds its runs and results and a ``shard.json`` saying which shard it is, of how many, of
which run group, and how many trials it owes. A folder of such folders reads as the whole
run: every shard present once, all of one run, each complete.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgekit._util.input_paths import is_dir, is_file, read_bytes
from judgekit._util.jsonl import validation_error_to_data_error
from judgekit.errors import ConfigError, DataError

SHARD_FILE: Final = "shard.json"
# The tags of the store batch the shards of one run share.
SHARD_GROUP_TAG: Final = "shard_group"
SHARDS_TAG: Final = "shards"
SHARD_RUNS_TAG: Final = "shard_runs"  # the runs all shards together record
_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True, order=True)
class Shard:
    """Shard ``index`` of ``count``, counted from 1."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``"2/4"`` -> ``Shard(2, 4)``; anything else is a ConfigError saying what is valid."""
    found = _SHARD.match(text)
    if found is not None:
        index, count = int(found[1]), int(found[2])
        if 1 <= index <= count:
            return Shard(index, count)
    raise ConfigError(f"--shard must be I/N with 1 <= I <= N (e.g. 2/4), got {text!r}")


class ShardManifest(BaseModel):
    """``shard.json``: which shard a folder holds and what it owes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shard: int = Field(ge=1)
    of: int = Field(ge=1)
    group: str | None = None
    trials: int = Field(ge=1)
    pairs: int = Field(ge=0)  # the (task, trial) pairs of this shard
    batch_key: str | None = None  # the store batch all shards of the run record into

    @property
    def label(self) -> Shard:
        return Shard(self.shard, self.of)


def load_shard_manifest(path: Path) -> ShardManifest:
    try:
        manifest = ShardManifest.model_validate_json(read_bytes(path))
    except ValidationError as exc:
        error = validation_error_to_data_error(exc, path=path, line=None)
        raise DataError(
            f"{error.message} (a shard.json as `judgekit run --shard I/N` writes it)",
            path=path,
            field=error.field,
        ) from None
    if manifest.shard > manifest.of:
        raise DataError(f"shard {manifest.shard} of {manifest.of}", path=path, field="shard")
    return manifest


def shard_folders(folder: Path) -> list[tuple[Path, ShardManifest]]:
    """The shard folders directly inside ``folder`` in shard order, checked to be the whole
    of one run (every shard once, one count, one group); ``[]`` when none is a shard."""
    try:
        children = sorted(folder.iterdir())
    except OSError as exc:
        raise DataError(f"cannot list this folder: {exc.strerror or exc}", path=folder) from None
    found = [
        (child, load_shard_manifest(child / SHARD_FILE))
        for child in children
        if is_dir(child) and is_file(child / SHARD_FILE)
    ]
    if not found:
        return []
    first_path, first = found[0]
    by_index: dict[int, Path] = {}
    for child, manifest in found:
        if (manifest.of, manifest.group, manifest.trials) != (first.of, first.group, first.trials):
            raise DataError(
                f"shard {manifest.label} is of another run than {first_path / SHARD_FILE} "
                f"(shard {first.label}): shards, group and trials must all agree",
                path=child / SHARD_FILE,
            )
        if manifest.shard in by_index:
            raise DataError(
                f"shard {manifest.label} twice: in {by_index[manifest.shard]} and in {child}; "
                "keep one",
                path=folder,
            )
        by_index[manifest.shard] = child
    missing = [str(Shard(i, first.of)) for i in range(1, first.of + 1) if i not in by_index]
    if missing:
        raise DataError(
            f"missing shard {', '.join(missing)} of this run: run "
            f"`judgekit run --shard I/{first.of}` for each and put its --out folder here",
            path=folder,
        )
    return sorted(found, key=lambda pair: pair[1].shard)


class ShardRunIds:
    """Where each run id of a sharded run was first read; a run id read in a second place
    (another shard, or another line) is refused."""

    def __init__(self) -> None:
        self._first: dict[str, tuple[Path, int]] = {}

    def add(self, run_id: str, file: Path, line: int) -> None:
        where = self._first.setdefault(run_id, (file, line))
        if where != (file, line):
            raise DataError(
                f"duplicate run id {run_id!r} (first in {where[0]} at line "
                f"{where[1]}); each run id must appear once across the shards",
                path=file,
                line=line,
                field="run_id",
            )

    def __len__(self) -> int:
        return len(self._first)


def check_shard_complete(manifest: ShardManifest, count: int, file: Path) -> None:
    """Refuse a shard whose ``file`` holds other than the ``manifest.pairs`` trials it owes."""
    if count != manifest.pairs:
        raise DataError(
            f"shard {manifest.label} holds {count} of its {manifest.pairs} trials; "
            f"complete it with `judgekit run --resume --shard {manifest.label}`",
            path=file,
        )
