"""Recording a command's files in the store, each file's records in the batch of that file
(the batch keys: :mod:`judgekit.store.runs_file_batch`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC
from pathlib import Path
from typing import Final

from judgekit._util.file_digest import file_sha256
from judgekit._util.input_paths import is_file
from judgekit._util.jsonl import iter_models, warn_on_stderr
from judgekit.errors import StoreError
from judgekit.formats.grade import Grade
from judgekit.formats.verdict import Verdict, load_verdicts
from judgekit.store.database import open_store
from judgekit.store.provenance import Provenance
from judgekit.store.queries import VerdictIdentity, verdict_identities_elsewhere
from judgekit.store.runs_file_batch import (
    IMPORT_KEY_PREFIX,
    RUNS_KEY_PREFIX,
    Recorded,
    RunsFileStore,
    Source,
    import_batch_key,
    open_batch,
    record_runs_file,
    runs_batch_key,
)
from judgekit.store.store import Store

__all__ = [
    "IMPORT_KEY_PREFIX",
    "RUNS_KEY_PREFIX",
    "TABLES",
    "Recorded",
    "RunsFileStore",
    "Source",
    "file_sha256",
    "import_batch_key",
    "iter_grades",
    "no_empty_batch_left",
    "open_batch",
    "record_graded_runs",
    "record_results_file",
    "record_runs_file",
    "record_verdicts_file",
    "runs_batch_key",
    "table_counts",
]

TABLES: Final = ("batches", "runs", "grades", "verdicts", "calibrations", "promotions")


@contextlib.contextmanager
def no_empty_batch_left(store: Store) -> Iterator[None]:
    """Record within the block; when it fails, the batches it created and left empty are
    removed, so a failed recording leaves no trace of itself in the store (a batch that holds
    records by then, its own or another process's, stays)."""
    before = len(store.created_batches)
    try:
        yield
    except BaseException:
        # The database may be what failed: its error is the one to report, not this one's.
        with contextlib.suppress(StoreError):
            store.remove_empty_batches(store.created_batches[before:])
        raise


def record_graded_runs(
    runs_path: str | Path,
    results_path: str | Path,
    *,
    source: Source,
    provenance: Provenance,
    url: str | None = None,
    key: str | None = None,
    shard: str | None = None,
) -> Recorded:
    """Open the store and record a runs file with the results file grading it, its runs
    labelled with their ``shard`` (a failure leaves no empty batch)."""
    with open_store(url) as store, no_empty_batch_left(store):
        grades = iter_grades(results_path)
        return record_runs_file(
            store,
            runs_path,
            source=source,
            provenance=provenance,
            grades=grades,
            key=key,
            shard=shard,
        )


def record_results_file(store: Store, path: str | Path, *, provenance: Provenance) -> Recorded:
    """Record an imported results file (grades) in its own batch — or, when the runs it
    grades lie beside it (`judgekit run` writes both in one folder), in their batch, so
    importing what a run already recorded adds nothing."""
    runs = Path(path).parent / "runs.jsonl"
    key = runs_batch_key(runs) if is_file(runs) else import_batch_key(path)
    batch_id = open_batch(store, key, source="import", provenance=provenance)
    grades = store.record_grades(iter_grades(path), batch_id)
    return Recorded(url=store.url, batch_id=batch_id, grades=grades)


def record_verdicts_file(
    store: Store,
    path: str | Path,
    *,
    provenance: Provenance,
    warn: Callable[[str], None] = warn_on_stderr,
) -> Recorded:
    """Record an imported verdicts file in its own batch, leaving out the verdicts another
    batch already holds (the same run, rubric version, model and time: `judgekit judge`
    recorded them when it wrote the file), so a monitor never counts one judgement twice.
    ``warn`` is told of a torn last line, which is left out."""
    batch_id = open_batch(store, import_batch_key(path), source="import", provenance=provenance)
    verdicts = load_verdicts(path, warn=warn)
    known = verdict_identities_elsewhere(store, (v.run_id for v in verdicts), batch_id)
    fresh = [v for v in verdicts if _identity(v) not in known]
    recorded = store.record_verdicts(fresh, batch_id)
    return Recorded(
        url=store.url, batch_id=batch_id, verdicts=recorded, known=len(verdicts) - len(fresh)
    )


def _identity(verdict: Verdict) -> VerdictIdentity:
    at = verdict.at if verdict.at.tzinfo else verdict.at.replace(tzinfo=UTC)
    return (verdict.run_id, verdict.rubric_id, verdict.rubric_version, verdict.model, at)


def iter_grades(path: str | Path) -> Iterable[Grade]:
    """The grades of a results.jsonl file, streamed."""
    return (grade for _, grade in iter_models(path, Grade))


def table_counts(store: Store) -> dict[str, int]:
    """The row count of each table that holds what was evaluated."""
    return {name: store.count(name) for name in TABLES}
