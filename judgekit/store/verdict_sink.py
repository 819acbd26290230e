"""Verdicts recorded in the store as a judge hands them over, a transaction per batch of them.

The runs they judge are recorded with the first verdict, not before: a judging that ends
without one (stopped by its budget, a provider that cannot answer) records no batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Final, Protocol

from judgekit.formats.verdict import Verdict

if TYPE_CHECKING:
    from judgekit.store.runs_file_batch import Recorded

__all__ = ["STORE_BATCH", "VerdictSink", "VerdictStore"]

STORE_BATCH: Final = 50  # verdicts per store transaction: durable without a commit per verdict


class VerdictStore(Protocol):
    """What takes verdicts into a batch: the store."""

    def record_verdicts(self, verdicts: Iterable[Verdict], batch_id: int) -> int: ...


class VerdictSink:
    """Verdicts on their way to the store's batch of a runs file, :data:`STORE_BATCH` per
    transaction: a crash loses at most one transaction's worth, never the file's (a rerun
    records them again from verdicts.jsonl). ``record_runs`` records the runs file and
    says where, called once with the first verdict. Call :meth:`flush` at the end."""

    def __init__(self, store: VerdictStore, record_runs: Callable[[], Recorded]) -> None:
        self._store = store
        self._record_runs = record_runs
        self._runs: Recorded | None = None
        self._pending: list[Verdict] = []
        self._written = 0

    def add(self, verdict: Verdict) -> None:
        if self._runs is None:
            self._runs = self._record_runs()
        self._pending.append(verdict)
        if len(self._pending) >= STORE_BATCH:
            self.flush()

    def flush(self) -> None:
        if self._pending and self._runs is not None:
            self._written += self._store.record_verdicts(self._pending, self._runs.batch_id)
            self._pending.clear()

    def recorded(self) -> Recorded | None:
        """What was recorded: the runs' batch, with the verdicts written so far; None when
        no verdict came, so nothing was."""
        return None if self._runs is None else replace(self._runs, verdicts=self._written)
