"""Recording a runs file in its batch, through the store (not imported here, so this module
loads without SQLAlchemy).

A batch is keyed by a digest of what it evaluated: the runs of a runs file sit in the batch
``runs:<sha256 of the file>``, so grading, running or judging the same runs again finds the
same batch — nothing is counted twice, and the grades and verdicts of one set of runs sit
together. A results or verdicts file imported on its own gets ``import:<sha256>``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from judgekit._util.file_digest import file_sha256
from judgekit.formats.run import Run, load_runs
from judgekit.store.provenance import Provenance

if TYPE_CHECKING:
    from judgekit.formats.grade import Grade  # grades are only passed through here

Source = Literal["grade", "run", "judge", "import"]

RUNS_KEY_PREFIX: Final = "runs:"
IMPORT_KEY_PREFIX: Final = "import:"


class RunsFileStore(Protocol):
    """What recording a runs file needs of the store."""

    @property
    def url(self) -> str: ...

    def batch(
        self,
        *,
        key: str | None = None,
        source: str | None = None,
        git_sha: str | None = None,
        branch: str | None = None,
        agent_version: str | None = None,
        tags: Mapping[str, Any] | None = None,
    ) -> int: ...

    def record_runs(
        self, runs: Iterable[Run], batch_id: int, *, shard: str | None = None
    ) -> int: ...

    def record_grades(self, grades: Iterable[Grade], batch_id: int) -> int: ...


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


def runs_batch_key(path: str | Path) -> str:
    """The key of the batch that evaluates the runs of ``path``."""
    return RUNS_KEY_PREFIX + file_sha256(path)


def import_batch_key(path: str | Path) -> str:
    """The key of the batch holding an imported results or verdicts file."""
    return IMPORT_KEY_PREFIX + file_sha256(path)


def open_batch(store: RunsFileStore, key: str, *, source: Source, provenance: Provenance) -> int:
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
    store: RunsFileStore,
    runs_path: str | Path,
    *,
    source: Source,
    provenance: Provenance,
    grades: Iterable[Grade] | None = None,
    key: str | None = None,
    runs: Iterable[Run] | None = None,
    shard: str | None = None,
) -> Recorded:
    """Record the runs of ``runs_path`` (and their ``grades``, if given) in its batch, or in
    the batch ``key`` (the one all shards of a sharded run share), each run labelled with
    its ``shard`` ("I/N"). ``runs`` are the file's runs when the caller has read them
    already (the file is then not read again)."""
    key = key or runs_batch_key(runs_path)
    batch_id = open_batch(store, key, source=source, provenance=provenance)
    runs = load_runs(runs_path) if runs is None else runs
    recorded = store.record_runs(runs, batch_id, shard=shard)
    graded = store.record_grades(grades, batch_id) if grades is not None else 0
    return Recorded(url=store.url, batch_id=batch_id, runs=recorded, grades=graded)
