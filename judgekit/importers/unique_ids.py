"""Unique run ids for imported runs.

Transcripts often carry ids that are not unique per run: τ-bench numbers its tasks, so every
trial of task 5 says ``"task_id": 5``, and a log may hold the same conversation id twice.
Every judgekit command refuses a runs file with a repeated run id (it would count a trial
twice), so an import makes them unique: the first run keeps its id, a later run with the
same id gets ``#2``, ``#3``, ... (the next suffix no run of the import has taken), and keeps
the id it came with in ``metadata["original_run_id"]``.

>>> from judgekit.formats.run import Run
>>> ids = UniqueRunIds()
>>> runs = [Run(run_id=run_id, task_id="t", tool_calls=[]) for run_id in ("a", "a", "b", "a")]
>>> [run.run_id for run in ids.apply(runs)]
['a', 'a#2', 'b', 'a#3']
>>> ids.renamed
{'a': ['a#2', 'a#3']}
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from judgekit.formats.run import Run

__all__ = ["ORIGINAL_RUN_ID", "UniqueRunIds"]

ORIGINAL_RUN_ID = "original_run_id"


class UniqueRunIds:
    """Renames repeated run ids of one import, remembering what it renamed (``renamed``:
    original id → the new ids, in order)."""

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self._next: dict[str, int] = {}
        self.renamed: dict[str, list[str]] = {}

    def apply(self, runs: Iterable[Run]) -> Iterator[Run]:
        """The runs, streamed, each with an id no earlier run of this import has."""
        for run in runs:
            yield self.unique(run)

    def unique(self, run: Run) -> Run:
        original = run.run_id
        if original not in self._taken:
            self._taken.add(original)
            return run
        number = self._next.get(original, 2)
        while f"{original}#{number}" in self._taken:
            number += 1
        new_id = f"{original}#{number}"
        self._next[original] = number + 1
        self._taken.add(new_id)
        self.renamed.setdefault(original, []).append(new_id)
        metadata = {**run.metadata, ORIGINAL_RUN_ID: original}
        return run.model_copy(update={"run_id": new_id, "metadata": metadata})
