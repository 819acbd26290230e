"""Several processes writing into one store at the same time, on both backends."""

from __future__ import annotations

import multiprocessing
import queue
import time
import traceback
from collections.abc import Callable
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from typing import Any

from sqlalchemy import select

from judgekit.store import open_store, schema
from judgekit.store.migrations import MIGRATIONS, applied_migrations
from tests.store.factories import make_verdict

# Generous: a slow CI machine must not turn into a flaky failure.
TIMEOUT_S = 300
SHARED_KEY = "runs:shared"


def _report(
    work: Callable[..., None], args: tuple[Any, ...], start: Barrier, results: Queue[str]
) -> None:
    try:
        work(*args, start)
        results.put("ok")
    except BaseException:
        results.put(traceback.format_exc())


def _run_together(work: Callable[..., None], jobs: list[tuple[Any, ...]]) -> list[str]:
    """Run ``work(*job, start)`` for every job, each in its own process; ``start`` is a
    barrier the processes pass together. Returns what each reported: "ok" or a traceback."""
    # spawn: each writer builds its own engine from scratch, as separate CLI processes do.
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(len(jobs))
    results: Queue[str] = context.Queue()
    processes = [context.Process(target=_report, args=(work, job, start, results)) for job in jobs]
    outcomes: list[str] = []
    deadline = time.monotonic() + TIMEOUT_S
    try:
        for process in processes:
            process.start()
        while len(outcomes) < len(processes):
            try:
                outcomes.append(results.get(timeout=1))
            except queue.Empty:
                if time.monotonic() > deadline:
                    outcomes.append(f"timed out after {TIMEOUT_S} s")
                    break
                if not any(p.is_alive() for p in processes) and results.empty():
                    codes = [p.exitcode for p in processes]
                    outcomes.append(f"a writer died without reporting (exit codes {codes})")
                    break
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.terminate()
                process.join(timeout=10)
    return outcomes


# -- many small transactions, into a new database --------------------------------------------

PER_PROCESS = 200


def _write_one_per_transaction(url: str, writer: int, start: Barrier) -> None:
    """Open the (new) store and record verdicts one per transaction."""
    start.wait(timeout=60)
    with open_store(url) as store:
        for i in range(PER_PROCESS):
            store.record_verdicts([make_verdict(f"writer{writer}/run{i}")])


def test_two_processes_write_at_once_without_locking_errors(store_url: str) -> None:
    outcomes = _run_together(_write_one_per_transaction, [(store_url, 1), (store_url, 2)])

    assert outcomes == ["ok", "ok"], "\n".join(outcomes)
    with open_store(store_url) as store:
        verdicts = store.verdicts("goal_completion")
        # Both writers raced to migrate the new database: each migration is recorded once.
        assert [n for n, _ in applied_migrations(store.engine)] == [n for n, _ in MIGRATIONS]
        # And both found the same "unbatched" batch.
        assert [b.batch_key for b in store.batches()] == ["unbatched"]
    assert len(verdicts) == 2 * PER_PROCESS
    assert {v.run_id for v in verdicts} == {
        f"writer{w}/run{i}" for w in (1, 2) for i in range(PER_PROCESS)
    }


# -- a judge's load: 10,000 verdicts per process, 50 per call, one shared batch ------------

VERDICTS_PER_PROCESS = 10_000
PER_CALL = 50  # as `judgekit judge` records them


def _judge(url: str, prefix: str, start: Barrier) -> None:
    """Record 10,000 verdicts into the batch ``runs:shared``, 50 per call."""
    verdicts = [make_verdict(f"{prefix}/run{i}") for i in range(VERDICTS_PER_PROCESS)]
    with open_store(url) as store:
        start.wait(timeout=60)
        batch_id = store.batch(key=SHARED_KEY, source="judge", branch=prefix)
        written = 0
        for first in range(0, VERDICTS_PER_PROCESS, PER_CALL):
            written += store.record_verdicts(verdicts[first : first + PER_CALL], batch_id=batch_id)
    if written != VERDICTS_PER_PROCESS:
        raise AssertionError(f"{prefix}: recorded {written} verdicts")


def _stored(url: str) -> tuple[int, list[str], set[int], list[tuple[str | None, str | None]]]:
    """Verdict rows, their run ids, their batch ids and the batches (key, branch)."""
    with open_store(url) as store, store.engine.connect() as connection:
        count = store.count("verdicts")
        rows = connection.execute(select(schema.verdicts.c.run_id, schema.verdicts.c.batch_id))
        run_ids: list[str] = []
        batch_ids: set[int] = set()
        for run_id, batch_id in rows:
            run_ids.append(run_id)
            batch_ids.add(batch_id)
        batches = [(b.batch_key, b.branch) for b in store.batches()]
        return count, run_ids, batch_ids, batches


def test_four_processes_write_40000_verdicts_into_one_batch(store_url: str) -> None:
    with open_store(store_url):  # migrated first: this test is about the writes
        pass
    writers = [f"writer{n}" for n in range(4)]

    outcomes = _run_together(_judge, [(store_url, prefix) for prefix in writers])

    assert outcomes == ["ok"] * 4, "\n".join(outcomes)
    count, run_ids, batch_ids, batches = _stored(store_url)
    assert count == 40_000
    assert len(run_ids) == 40_000
    assert set(run_ids) == {
        f"{prefix}/run{i}" for prefix in writers for i in range(VERDICTS_PER_PROCESS)
    }
    # Four processes asked for the batch at once: one was created, and it has every verdict
    # (with the details of whichever asked first).
    [(key, branch)] = batches
    assert key == SHARED_KEY
    assert branch in writers
    assert len(batch_ids) == 1


def test_the_same_verdicts_written_by_two_processes_are_stored_once(store_url: str) -> None:
    with open_store(store_url):
        pass

    outcomes = _run_together(_judge, [(store_url, "same"), (store_url, "same")])

    assert outcomes == ["ok", "ok"], "\n".join(outcomes)
    count, run_ids, batch_ids, batches = _stored(store_url)
    assert count == 10_000
    assert sorted(run_ids) == sorted(f"same/run{i}" for i in range(VERDICTS_PER_PROCESS))
    assert batches == [(SHARED_KEY, "same")]
    assert len(batch_ids) == 1
