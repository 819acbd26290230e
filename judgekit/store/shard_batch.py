"""The store batch the shards of one run share: whole only once every shard recorded, and
where grading the folder of its shards records the grades.

Each shard records its runs and grades into the batch its ``shard.json`` names as it runs;
grading the folder of shards with the store on records the merged grades into that same
batch (replacing each run's grade, never adding a second), after checking every shard
recorded there, and records no run again — nothing is counted twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit.errors import ConfigError, StoreError
from judgekit.formats.grade import Grade
from judgekit.formats.shard import shard_folders
from judgekit.store.runs_file_batch import Recorded
from judgekit.store.shard_status import shard_status

if TYPE_CHECKING:  # SQLAlchemy loads only when the store opens: the gate imports the check
    from judgekit.store.batches import Batch

__all__ = ["check_all_shards", "record_shard_grades", "shards_batch"]


def check_all_shards(reference: str, batch: Batch, graded: int) -> None:
    """A batch the shards of one run share holds the whole run only once all have recorded:
    a part is refused, never taken as if it were the whole."""
    status = shard_status(batch.tags, graded)
    if status is not None and not status.complete:
        raise StoreError(
            f"{reference} is batch {batch.id}, the {status.count} shards of group "
            f"{status.group!r}, with {graded} of their {status.runs} runs graded: a "
            "shard is missing or unfinished (gate the shards' folders to see which)"
        )


def shards_batch(folder: str | Path, url: str | None = None) -> int:
    """The id of the batch the shards in ``folder`` recorded into, checked to hold all of
    them; refused when they were not recorded (``--no-store``) or not in this store."""
    shards = shard_folders(Path(folder), verify_files=False)
    if not shards:
        raise ConfigError(f"{folder} holds no shard folders (each with a shard.json)")
    label, manifest = shards[0][1].label, shards[0][1]
    if manifest.batch_key is None:
        raise ConfigError(
            f"the shards in {folder} were run with --no-store (shard {label}'s shard.json "
            "names no store batch): grade them with --no-store"
        )
    from judgekit.store.database import open_store

    with open_store(url) as store:
        batch = store.find_batch(manifest.batch_key)
        if batch is None:
            raise StoreError(
                f"{store.url} holds no batch of the shards in {folder} (group "
                f"{manifest.group!r}): point JUDGEKIT_DB at the store they recorded in, or "
                "grade them with --no-store"
            )
        check_all_shards(f"{folder} (its shards)", batch, store.grade_count(batch.id))
        return batch.id


def record_shard_grades(batch_id: int, grades: Iterable[Grade], url: str | None = None) -> Recorded:
    """Record the grades of the merged shards into their batch (each run's grade replaced)."""
    from judgekit.store.database import open_store

    with open_store(url) as store:
        recorded = store.record_grades(grades, batch_id)
        return Recorded(url=store.url, batch_id=batch_id, grades=recorded)
