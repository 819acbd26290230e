"""Two processes writing verdicts into one SQLite file at the same time."""

from __future__ import annotations

import multiprocessing
import traceback
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

from judgekit.store import open_store
from judgekit.store.migrations import MIGRATIONS, applied_migrations
from tests.store.factories import make_verdict

PER_PROCESS = 200


def _write(url: str, writer: int, start: Barrier, results: Queue[str]) -> None:
    """Open the (new) store and record verdicts one per transaction, as a judge does."""
    try:
        start.wait(timeout=60)
        with open_store(url) as store:
            for i in range(PER_PROCESS):
                store.record_verdicts([make_verdict(f"writer{writer}/run{i}")])
        results.put("ok")
    except BaseException:
        results.put(traceback.format_exc())


def test_two_processes_write_at_once_without_locking_errors(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    # spawn: each writer builds its own engine from scratch, as separate CLI processes do.
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(2)
    results: Queue[str] = context.Queue()
    writers = [context.Process(target=_write, args=(url, n, start, results)) for n in (1, 2)]
    for process in writers:
        process.start()
    outcomes = [results.get(timeout=120) for _ in writers]
    for process in writers:
        process.join(timeout=30)

    assert outcomes == ["ok", "ok"], "\n".join(outcomes)
    with open_store(url) as store:
        verdicts = store.verdicts("goal_completion")
        # Both writers raced to migrate the new file: each migration is still recorded once.
        assert [n for n, _ in applied_migrations(store.engine)] == [n for n, _ in MIGRATIONS]
    assert len(verdicts) == 2 * PER_PROCESS
    assert {v.run_id for v in verdicts} == {
        f"writer{w}/run{i}" for w in (1, 2) for i in range(PER_PROCESS)
    }
