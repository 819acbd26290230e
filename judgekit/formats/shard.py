"""Shards of one run: ``--shard I/N`` and the ``shard.json`` each shard's folder holds.

A sharded run is N folders, one per ``judgekit run --shard I/N`` (I counts from 1). Each
holds its runs and results and a ``shard.json`` saying which shard it is, of how many, of
which run group, of which suite (its sha256, its tasks, the pairs of the whole run), how
many trials it owes, and, once the shard finished, the sha256 of its runs and results files
as written. A folder of such folders reads as the whole run only when that holds: every
shard present once, all of one run and one suite, each shard's counts those its suite and
trials give, each file the one its shard finished with, and nothing else of a run beside
the shard folders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgekit._util.atomic_files import atomic_files, make_folders
from judgekit._util.file_digest import file_sha256
from judgekit._util.input_paths import is_dir, is_file, read_bytes
from judgekit._util.jsonl import validation_error_to_data_error
from judgekit.errors import ConfigError, DataError

SHARD_FILE: Final = "shard.json"
SHARD_RUNS: Final = "runs.jsonl"  # the runs file in each shard's folder
SHARD_RESULTS: Final = "results.jsonl"
# What a run writes: beside shard folders, any of these is a part of no shard.
_RUN_FILES: Final = (SHARD_RUNS, SHARD_RESULTS, "results.csv", SHARD_FILE)
# The tags of the store batch the shards of one run share.
SHARD_GROUP_TAG: Final = "shard_group"
SHARDS_TAG: Final = "shards"
SHARD_RUNS_TAG: Final = "shard_runs"  # the runs all shards together record
_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
_SHA256 = r"^[0-9a-f]{64}$"


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


def share_of(shard: Shard, run_pairs: int) -> int:
    """The pairs shard ``shard`` owes of a run of ``run_pairs``: pair k (from 0) of the
    partition's order belongs to shard ``k mod N + 1`` (:mod:`judgekit.trials.shards`)."""
    return len(range(shard.index - 1, run_pairs, shard.count))


class ShardManifest(BaseModel):
    """``shard.json``: which shard a folder holds, of which run and suite, what it owes,
    and the digests of its files once it finished."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shard: int = Field(ge=1)
    of: int = Field(ge=1)
    group: str | None = None
    trials: int = Field(ge=1)
    pairs: int = Field(ge=0)  # the (task, trial) pairs of this shard
    batch_key: str | None = None  # the store batch all shards of the run record into
    # None only in a shard.json an older judgekit wrote, which proves nothing.
    tasks: int | None = Field(default=None, ge=0)  # the tasks of the suite run
    run_pairs: int | None = Field(default=None, ge=0)  # tasks × trials: all shards' pairs
    suite_sha256: str | None = Field(default=None, pattern=_SHA256)  # formats.suite
    # The suite its results were graded by: the one run, or one regraded in place with.
    graded_sha256: str | None = Field(default=None, pattern=_SHA256)
    # The files as written when the shard finished; None while it runs (or was cut short).
    runs_sha256: str | None = Field(default=None, pattern=_SHA256)
    results_sha256: str | None = Field(default=None, pattern=_SHA256)

    @property
    def label(self) -> Shard:
        return Shard(self.shard, self.of)

    def unfinished(self) -> ShardManifest:
        """This manifest without the digests of its files: what a shard running says."""
        return self.model_copy(update={"runs_sha256": None, "results_sha256": None})

    def finished(self, folder: Path) -> ShardManifest:
        """This manifest with the digests of ``folder``'s runs and results as they are now."""
        return self.model_copy(
            update={
                "runs_sha256": file_sha256(folder / SHARD_RUNS),
                "results_sha256": file_sha256(folder / SHARD_RESULTS),
            }
        )


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


def write_shard_manifest(folder: Path, manifest: ShardManifest) -> None:
    """Write ``shard.json`` (whole or not at all)."""
    make_folders(folder)
    with atomic_files() as files:
        files.text(folder / SHARD_FILE).write(manifest.model_dump_json(indent=2) + "\n")


def shard_folders(folder: Path, *, verify_files: bool = True) -> list[tuple[Path, ShardManifest]]:
    """The shard folders directly inside ``folder`` in shard order, checked to be the whole
    of one run (:func:`check_shard_manifest` for each, every shard once, one count, group
    and suite, no run file beside them) and, with ``verify_files``, each shard's files the
    ones it finished with (:func:`verify_shard_files`); ``[]`` when none is a shard."""
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
    for name in _RUN_FILES:
        if is_file(folder / name):
            raise DataError(
                f"a {name} beside the shard folders of a run is part of no shard: move it "
                f"out of {folder}, or give it by its own path",
                path=folder / name,
            )
    for child, manifest in found:
        check_shard_manifest(manifest, child / SHARD_FILE)
    _check_one_run(folder, found)
    if verify_files:
        for child, manifest in found:
            verify_shard_files(child, manifest)
    return sorted(found, key=lambda pair: pair[1].shard)


def check_shard_manifest(manifest: ShardManifest, path: Path) -> None:
    """Refuse a ``shard.json`` that proves nothing (an older judgekit's, without digests)
    or whose counts disagree: the run's pairs are its tasks × trials, and the shard owes
    its share of them."""
    label = manifest.label
    if (
        manifest.suite_sha256 is None
        or manifest.graded_sha256 is None
        or manifest.tasks is None
        or manifest.run_pairs is None
    ):
        raise DataError(
            f"shard {label} was written by an older judgekit, without the digests of its "
            f"suite and files that prove it whole: rerun it with `judgekit run --shard {label}` "
            "into an empty --out",
            path=path,
        )
    product = manifest.tasks * manifest.trials
    counts = f"{manifest.tasks} tasks × {manifest.trials} trials"
    if manifest.run_pairs != product:
        raise DataError(
            f"shard {label} says its run has {manifest.run_pairs} pairs, but {counts} are "
            f"{product}: this shard.json was edited; rerun the shard",
            path=path,
            field="run_pairs",
        )
    owed = share_of(label, manifest.run_pairs)
    if manifest.pairs != owed:
        raise DataError(
            f"shard {label} says it owes {manifest.pairs} pairs, but its share of the run's "
            f"{product} ({counts}) is {owed}: this shard.json was edited; rerun the shard",
            path=path,
            field="pairs",
        )


def _check_one_run(folder: Path, found: list[tuple[Path, ShardManifest]]) -> None:
    """Every shard of one run (count, group, trials) and one suite, each present once, none
    missing."""
    first_path, first = found[0]
    by_index: dict[int, Path] = {}
    for child, manifest in found:
        if (manifest.of, manifest.group, manifest.trials) != (first.of, first.group, first.trials):
            raise DataError(
                f"shard {manifest.label} is of another run than {first_path / SHARD_FILE} "
                f"(shard {first.label}): shards, group and trials must all agree",
                path=child / SHARD_FILE,
            )
        if (manifest.suite_sha256, manifest.tasks) != (first.suite_sha256, first.tasks):
            raise DataError(
                f"shard {manifest.label} was run on another suite than shard {first.label} "
                f"({first_path / SHARD_FILE}): {manifest.tasks} tasks against {first.tasks}, "
                f"suite sha256 {_short(manifest.suite_sha256)} against "
                f"{_short(first.suite_sha256)}; rerun the stale shards on one suite",
                path=child / SHARD_FILE,
            )
        if manifest.graded_sha256 != first.graded_sha256:
            raise DataError(
                f"shard {manifest.label}'s results were graded with another suite than shard "
                f"{first.label}'s ({first_path / SHARD_FILE}): suite sha256 "
                f"{_short(manifest.graded_sha256)} against {_short(first.graded_sha256)}; "
                "regrade every shard in place with one suite",
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


def _short(digest: str | None) -> str:
    return f"{(digest or '')[:12]}…"


def verify_shard_files(
    folder: Path, manifest: ShardManifest, names: tuple[str, ...] = (SHARD_RUNS, SHARD_RESULTS)
) -> None:
    """Refuse a shard that did not finish (no digests yet) or whose runs or results file
    (of ``names``) is not the one it finished with (cut, edited or replaced since)."""
    label = manifest.label
    recorded = {SHARD_RUNS: manifest.runs_sha256, SHARD_RESULTS: manifest.results_sha256}
    if any(recorded[name] is None for name in names):
        raise DataError(
            f"shard {label} is unfinished (its files have no digests yet): complete it with "
            f"`judgekit run --resume --shard {label}`",
            path=folder / SHARD_FILE,
        )
    runs = folder / SHARD_RUNS
    regrade = f"regrade it in place (`judgekit grade {runs} --tasks … --out {folder}`)"
    remedies = {SHARD_RUNS: "rerun the shard", SHARD_RESULTS: f"{regrade} or rerun the shard"}
    for name in names:
        if file_sha256(folder / name) != recorded[name]:
            raise DataError(
                f"not the {name} shard {label} finished with (its sha256 is not the one its "
                f"{SHARD_FILE} holds): it was cut or edited since; {remedies[name]}",
                path=folder / name,
            )


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
    """Refuse a shard whose ``file`` holds other than the ``manifest.pairs`` trials it owes
    (its digests held, so only a shard.json written by hand gets here)."""
    if count != manifest.pairs:
        raise DataError(
            f"shard {manifest.label} holds {count} of its {manifest.pairs} trials; "
            f"complete it with `judgekit run --resume --shard {manifest.label}`",
            path=file,
        )
