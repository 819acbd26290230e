"""What the gate compares: each side's grades, read from a results file or folder, or from
a batch of the store (``batch:ID``, ``latest:BRANCH``)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit._util.input_paths import is_dir, is_file
from judgekit.formats.grade import Grade, load_results, results_path
from judgekit.formats.shard import shard_folders
from judgekit.store.run_filter import EVERYTHING, RunFilter, run_suite
from judgekit.store.shard_batch import check_all_shards

if TYPE_CHECKING:  # the store loads SQLAlchemy: only when a side or a rubric needs it
    from judgekit.store import Store

__all__ = ["Side", "is_store_reference", "resolve_side", "store_if_needed"]

_STORE_REFERENCE = re.compile(r"^(batch|latest):")


@dataclass
class Side:
    """One side of the gate: its grades, and its batch in the store when known."""

    name: str
    grades: list[Grade]
    batch_id: int | None


def is_store_reference(reference: str) -> bool:
    """``batch:ID`` or ``latest:BRANCH``, read from the store rather than from a file."""
    return _STORE_REFERENCE.match(reference) is not None


def resolve_side(reference: str, store: Store | None, only: RunFilter = EVERYTHING) -> Side:
    """A results file or folder, or a store reference (the store must then be given).

    A results folder's batch is the one of the ``runs.jsonl`` beside its results, when the
    store holds it; a folder of shard folders (``judgekit run --shard``) reads as one side,
    in the batch its shards share. ``only`` picks a store reference's batch (the newest that
    matches) and keeps one suite's grades on either kind of side."""
    if is_store_reference(reference):
        assert store is not None
        batch = store.batch_with_grades(reference, only=only)
        grades = store.grades(batch.id, only=only)
        whole = grades if only.is_empty else store.grades(batch.id)
        check_all_shards(reference, batch, len(whole))
        return Side(f"{reference} (batch {batch.id})", grades, batch.id)
    grades = list(load_results(reference))
    if only.suite is not None:
        grades = [g for g in grades if run_suite(g.run_id, g.task_id) == only.suite]
    batch_id = None
    if store is not None:
        key = _folder_batch_key(reference)
        found = None if key is None else store.find_batch(key)
        batch_id = None if found is None else found.id
    return Side(reference, grades, batch_id)


def _folder_batch_key(reference: str) -> str | None:
    """The store batch of a results file or folder: the one of the ``runs.jsonl`` beside
    it, or, for a folder of shards, the batch all its shards recorded into."""
    from judgekit.store.record_files import runs_batch_key

    if is_dir(reference):
        # Read (and verified) by load_results already: the batch key is all wanted here.
        shards = shard_folders(Path(reference), verify_files=False)
        if shards:
            return shards[0][1].batch_key
    runs = results_path(reference).parent / "runs.jsonl"
    return runs_batch_key(runs) if is_file(runs) else None


@contextmanager
def store_if_needed(references: Sequence[str], rubrics: bool) -> Iterator[Store | None]:
    """The store, opened only when a side is a store reference or rubrics are compared."""
    if rubrics or any(is_store_reference(r) for r in references):
        from judgekit.store import open_store

        with open_store() as store:
            yield store
    else:
        yield None
