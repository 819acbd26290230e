"""Recording a command's files in the store, each file's records in the batch of that file.

A batch is keyed by a digest of what it evaluated: the runs of a runs file sit in the batch
``runs:<sha256 of the file>``, so grading, running or judging the same runs again finds the
same batch — nothing is counted twice, and the grades and verdicts of one set of runs sit
together. A results or verdicts file imported on its own gets ``import:<sha256>``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any, Final, Literal

from judgekit._util.input_paths import is_file
from judgekit._util.jsonl import iter_models
from judgekit.errors import DataError
from judgekit.formats.grade import Grade
from judgekit.formats.run import load_runs
from judgekit.formats.verdict import Verdict, load_verdicts
from judgekit.store.database import open_store
from judgekit.store.provenance import Provenance
from judgekit.store.queries import VerdictIdentity, verdict_identities_elsewhere
from judgekit.store.store import Store

Source = Literal["grade", "run", "judge", "import"]

RUNS_KEY_PREFIX: Final = "runs:"
IMPORT_KEY_PREFIX: Final = "import:"
_READ_SIZE: Final = 1 << 20

TABLES: Final = ("batches", "runs", "grades", "verdicts", "calibrations", "promotions")


@dataclass(frozen=True)
class Recorded:
    """What one recording wrote: where, in which batch, how many of each."""

    url: str
    batch_id: int
    runs: int = 0
    grades: int = 0
    verdicts: int = 0
    known: int = 0  # verdicts left out: already in the store, recorded by another batch

    def as_json(self) -> dict[str, Any]:
        """The ``"store"`` object of a command's ``--json`` output."""
        return {"url": self.url, "batch_id": self.batch_id}


def file_sha256(path: str | Path) -> str:
    """The sha256 of a file's bytes, read in chunks (a runs file may be gigabytes)."""
    digest = hashlib.sha256()
    try:
        with Path(path).open("rb") as fh:
            while chunk := fh.read(_READ_SIZE):
                digest.update(chunk)
    except FileNotFoundError:
        raise DataError("no such file", path=path) from None
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", path=path) from None
    return digest.hexdigest()


def runs_batch_key(path: str | Path) -> str:
    """The key of the batch that evaluates the runs of ``path``."""
    return RUNS_KEY_PREFIX + file_sha256(path)


def import_batch_key(path: str | Path) -> str:
    """The key of the batch holding an imported results or verdicts file."""
    return IMPORT_KEY_PREFIX + file_sha256(path)


def open_batch(store: Store, key: str, *, source: Source, provenance: Provenance) -> int:
    """The id of the batch ``key``, created with this provenance if it is new."""
    return store.batch(
        key=key,
        source=source,
        git_sha=provenance.git_sha,
        branch=provenance.branch,
        agent_version=provenance.agent_version,
        tags=provenance.tags or None,
    )


def record_runs_file(
    store: Store,
    runs_path: str | Path,
    *,
    source: Source,
    provenance: Provenance,
    grades: Iterable[Grade] | None = None,
    key: str | None = None,
) -> Recorded:
    """Record the runs of ``runs_path`` (and their ``grades``, if given) in its batch, or in
    the batch ``key`` (the one all shards of a sharded run share)."""
    key = key or runs_batch_key(runs_path)
    batch_id = open_batch(store, key, source=source, provenance=provenance)
    runs = store.record_runs(load_runs(runs_path), batch_id)
    graded = store.record_grades(grades, batch_id) if grades is not None else 0
    return Recorded(url=store.url, batch_id=batch_id, runs=runs, grades=graded)


def record_graded_runs(
    runs_path: str | Path,
    results_path: str | Path,
    *,
    source: Source,
    provenance: Provenance,
    url: str | None = None,
    key: str | None = None,
) -> Recorded:
    """Open the store and record a runs file with the results file grading it."""
    with open_store(url) as store:
        grades = iter_grades(results_path)
        return record_runs_file(
            store, runs_path, source=source, provenance=provenance, grades=grades, key=key
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


def record_verdicts_file(store: Store, path: str | Path, *, provenance: Provenance) -> Recorded:
    """Record an imported verdicts file in its own batch, leaving out the verdicts another
    batch already holds (the same run, rubric version, model and time: `judgekit judge`
    recorded them when it wrote the file), so a monitor never counts one judgement twice."""
    batch_id = open_batch(store, import_batch_key(path), source="import", provenance=provenance)
    verdicts = load_verdicts(path)
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
