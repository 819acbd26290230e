"""How whole the store batch the shards of one run share is: which shards recorded runs
there, which are missing, and how many of the run's runs were graded.

One reckoning for everyone who asks — the gate and ``grade`` of a folder of shards (which
refuse a part, :func:`~judgekit.store.shard_batch.check_all_shards`), ``judgekit store
info`` and the report (which show it): a batch is whole when it holds a grade for every run
its ``shard_runs`` tag says all shards together record.

>>> tags = {"shard_group": "abc", "shards": "4", "shard_runs": "100"}
>>> status = shard_status(tags, 75, ["1/4", "2/4", None, "4/4", "1/4"])
>>> status.complete, status.missing
(False, ('3/4',))
>>> print(status.describe())
shards 1/4, 2/4, 4/4 of group 'abc' recorded; 3/4 missing: 75 of 100 runs graded — incomplete
>>> print(shard_status(tags, 100, ["4/4", "3/4", "2/4", "1/4"]).describe())
all 4 shards of group 'abc' recorded, 100 of 100 runs graded
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgekit._util.input_paths import is_dir
from judgekit.formats.grade import Grade
from judgekit.formats.shard import SHARD_GROUP_TAG, SHARD_RUNS_TAG, SHARDS_TAG, shard_folders

if TYPE_CHECKING:  # SQLAlchemy loads only when the store opens: the gate imports this
    from judgekit.store.batches import Batch
    from judgekit.store.store import Store

__all__ = [
    "RunShards",
    "ShardStatus",
    "folder_run_shards",
    "shard_status",
    "stored_run_shards",
    "stored_shard_status",
]

_LABEL = re.compile(r"^(\d+)/(\d+)$")


@dataclass(frozen=True)
class ShardStatus:
    """A shared batch's shards: its group, how many shards and runs its tags expect (None
    when a tag is absent or not a number), the runs graded, and the shards ("I/N") that
    recorded runs there (None when not read: the gate needs only the count)."""

    group: str | None
    count: int | None
    runs: int | None
    graded: int
    recorded: tuple[str, ...] | None = None

    @property
    def complete(self) -> bool:
        """Every run the shards owe graded: what the gate requires before it compares."""
        return self.runs is None or self.graded >= self.runs

    @property
    def missing(self) -> tuple[str, ...]:
        """The shards of the group that recorded no run here (() when not known)."""
        if self.recorded is None or self.count is None:
            return ()
        return tuple(
            label
            for index in range(1, self.count + 1)
            if (label := f"{index}/{self.count}") not in self.recorded
        )

    def graded_text(self) -> str:
        """``75 of 100 runs graded`` (``75 runs graded`` when the batch does not say)."""
        of = "" if self.runs is None else f" of {self.runs}"
        return f"{self.graded}{of} runs graded"

    def describe(self) -> str:
        """One line: the shards recorded and missing, the runs graded, whether it is whole."""
        group = f"group {self.group!r}"
        incomplete = "" if self.complete else " — incomplete"
        missing = self.missing
        if self.recorded is not None and not missing and self.count is not None:
            return f"all {self.count} shards of {group} recorded, {self.graded_text()}{incomplete}"
        if self.recorded is None:
            shards = f"the {self.count} shards" if self.count is not None else "the shards"
            return f"{shards} of {group}: {self.graded_text()}{incomplete}"
        recorded = f"shards {', '.join(self.recorded)}" if self.recorded else "no shard"
        gone = f"; {', '.join(missing)} missing" if missing else ""
        return f"{recorded} of {group} recorded{gone}: {self.graded_text()}{incomplete}"

    def as_json(self) -> dict[str, Any]:
        """The ``"shards"`` object of ``judgekit store info --json``."""
        return {
            "group": self.group,
            "shards": self.count,
            "recorded": None if self.recorded is None else list(self.recorded),
            "missing": list(self.missing),
            "runs": self.runs,
            "graded": self.graded,
            "complete": self.complete,
        }


def shard_status(
    tags: Mapping[str, Any] | None, graded: int, run_shards: Iterable[str | None] | None = None
) -> ShardStatus | None:
    """The status of a batch of these ``tags`` with ``graded`` grades, whose runs were
    recorded by ``run_shards`` (each run's "I/N", None for a run recorded whole); None for a
    batch no shards share (its tags name no shard group and no runs of shards)."""
    tags = tags or {}
    if SHARD_GROUP_TAG not in tags and SHARD_RUNS_TAG not in tags:
        return None
    group = tags.get(SHARD_GROUP_TAG)
    recorded = None
    if run_shards is not None:
        labels = {label for label in run_shards if label is not None}
        recorded = tuple(sorted(labels, key=_label_order))
    return ShardStatus(
        group=None if group is None else str(group),
        count=_number(tags.get(SHARDS_TAG)),
        runs=_number(tags.get(SHARD_RUNS_TAG)),
        graded=graded,
        recorded=recorded,
    )


@dataclass(frozen=True)
class RunShards:
    """A shared batch's status, and the shard ("I/N") that recorded each of its runs."""

    status: ShardStatus
    by_run: Mapping[str, str]


def stored_run_shards(store: Store, batch: Batch) -> RunShards | None:
    """The shards of a batch as ``store`` holds it; None (and no query) for a batch no
    shards share."""
    if shard_status(batch.tags, 0) is None:
        return None
    labels = store.run_shards(batch.id)
    status = shard_status(batch.tags, store.grade_count(batch.id), labels.values())
    assert status is not None
    by_run = {run_id: label for run_id, label in labels.items() if label is not None}
    return RunShards(status, by_run)


def folder_run_shards(folder: Path, grades: Sequence[Grade]) -> RunShards | None:
    """The shards of a folder of shard folders, given the ``grades``
    :func:`~judgekit.formats.grade.load_results` read from it (in shard order, each shard
    exactly the trials it owes: it refuses anything else, so the run is whole); None for
    any other results file or folder."""
    shards = shard_folders(folder, verify_files=False) if is_dir(folder) else []
    if not shards:
        return None
    by_run: dict[str, str] = {}
    start = 0
    for _, manifest in shards:
        label = str(manifest.label)
        by_run |= {grade.run_id: label for grade in grades[start : start + manifest.pairs]}
        start += manifest.pairs
    first = shards[0][1]
    status = ShardStatus(
        group=first.group,
        count=first.of,
        runs=first.run_pairs,
        graded=len(grades),
        recorded=tuple(str(manifest.label) for _, manifest in shards),
    )
    return RunShards(status, by_run)


def stored_shard_status(store: Store, batch: Batch) -> ShardStatus | None:
    """:func:`shard_status` of a batch as ``store`` holds it (None for a batch no shards
    share)."""
    found = stored_run_shards(store, batch)
    return None if found is None else found.status


def _number(value: object) -> int | None:
    text = str(value) if value is not None else ""
    return int(text) if text.isdigit() else None


def _label_order(label: str) -> tuple[int, int, str]:
    """Shards in index order ("2/4" before "10/12"); a label of another shape after them."""
    found = _LABEL.match(label)
    return (int(found[1]), int(found[2]), "") if found else (1 << 62, 0, label)
