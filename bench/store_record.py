"""Recording verdicts in the SQLite store, against the bare sqlite3 driver on the same rows.

    python bench/store_record.py [--verdicts 200000] [--per-call 10000] [--repeat 3]

Each repeat records N verdicts with ``Store.record_verdicts`` (``--per-call`` at a time, each
call one transaction, as `judgekit judge` and `judgekit store import` record them) into a
fresh store, then inserts the very same rows, already turned into tuples, with the sqlite3
driver's ``executemany`` — one transaction per call as well — twice: into a fresh store's
``verdicts`` table (the same indexes: the floor the store can reach) and into a table without
indexes (the floor of the driver alone). It prints the median rows/s of each, by wall time
and by CPU time (what the process itself spent, whatever else the machine runs), and the
ratios; the spread (min–max over the repeats) is in brackets. The store writes every table
through the same bulk upsert (:mod:`judgekit.store.bulk`); target: at least 50,000 rows/s.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from judgekit.formats.verdict import Verdict
from judgekit.store import open_store, schema
from judgekit.store.bulk import bulk_columns
from judgekit.store.rows import verdict_row

RUBRIC, VERSION, MODEL = "goal_completion", "3f2a9c", "openai/gpt-4o-mini"
START = datetime(2026, 11, 1, tzinfo=UTC)
TARGET_ROWS_S = 50_000


def make_verdicts(total: int) -> list[Verdict]:
    return [
        Verdict(
            run_id=f"shop/task{i % 40}/{i}",
            rubric_id=RUBRIC,
            rubric_version=VERSION,
            model=MODEL,
            status="scored",
            score="pass" if i % 5 else "fail",
            reason="The refund was issued as asked.",
            input_tokens=812,
            output_tokens=41,
            cost_usd=0.00014,
            latency_s=0.8,
            at=START + timedelta(seconds=i),
        )
        for i in range(total)
    ]


Timing = tuple[float, float]  # wall and CPU seconds


def time_store(path: Path, calls: list[list[Verdict]]) -> Timing:
    with open_store(f"sqlite:///{path}") as store:
        batch = store.batch(key="runs:bench", source="judge")
        began, cpu = time.perf_counter(), time.process_time()
        for verdicts in calls:
            store.record_verdicts(verdicts, batch)
        return time.perf_counter() - began, time.process_time() - cpu


def driver_rows(calls: list[list[Verdict]], batch: int) -> list[list[tuple[Any, ...]]]:
    """The rows as the store's table holds them, as tuples (not timed)."""
    names = bulk_columns(schema.verdicts)
    converted = []
    for verdicts in calls:
        rows = []
        for verdict in verdicts:
            row = verdict_row(verdict, batch)
            row["at"] = row["at"].isoformat(timespec="microseconds")
            row["score"] = f'"{row["score"]}"'
            rows.append(tuple(row[name] for name in names))
        converted.append(rows)
    return converted


def time_driver(path: Path, calls: list[list[tuple[Any, ...]]], *, indexed: bool) -> Timing:
    names = bulk_columns(schema.verdicts)
    if indexed:
        with open_store(f"sqlite:///{path}") as store:
            store.batch(key="runs:bench", source="judge")
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    if not indexed:
        connection.execute(f"CREATE TABLE verdicts ({', '.join(names)})")
    sql = f"INSERT INTO verdicts ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
    began, cpu = time.perf_counter(), time.process_time()
    for rows in calls:
        connection.execute("BEGIN")
        connection.executemany(sql, rows)
        connection.execute("COMMIT")
    elapsed = time.perf_counter() - began, time.process_time() - cpu
    connection.close()
    return elapsed


def summary(label: str, total: int, timings: list[Timing]) -> tuple[float, float]:
    rates = [total / wall for wall, _ in timings]
    cpu_rates = [total / cpu for _, cpu in timings]
    median, cpu_median = statistics.median(rates), statistics.median(cpu_rates)
    print(
        f"{label}: {median:,.0f} rows/s [{min(rates):,.0f}–{max(rates):,.0f}], "
        f"{cpu_median:,.0f} rows per CPU second [{min(cpu_rates):,.0f}–{max(cpu_rates):,.0f}]"
    )
    return median, cpu_median


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--verdicts", type=int, default=200_000)
    parser.add_argument("--per-call", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    verdicts = make_verdicts(args.verdicts)
    calls = [verdicts[i : i + args.per_call] for i in range(0, len(verdicts), args.per_call)]
    rows = driver_rows(calls, batch=1)
    timings: dict[str, list[Timing]] = {"store": [], "indexed": [], "bare": []}
    runs: dict[str, Callable[[Path], Timing]] = {
        "store": lambda path: time_store(path, calls),
        "indexed": lambda path: time_driver(path, rows, indexed=True),
        "bare": lambda path: time_driver(path, rows, indexed=False),
    }
    with tempfile.TemporaryDirectory(prefix="judgekit-bench-") as name:
        folder = Path(name)  # each repeat's stores are about 0.5 GB: removed at the end
        print(f"{args.verdicts:,} verdicts, {len(calls)} calls, SQLite in {folder}")
        for repeat in range(args.repeat):
            for kind, run in runs.items():  # interleaved: a busy moment hits all three
                timings[kind].append(run(folder / f"{kind}{repeat}.sqlite"))
    store = summary("judgekit Store.record_verdicts", args.verdicts, timings["store"])
    print(f"target ≥ {TARGET_ROWS_S:,} rows/s: {'met' if store[0] >= TARGET_ROWS_S else 'not met'}")
    indexed = summary("sqlite3 executemany, the store's table", args.verdicts, timings["indexed"])
    bare = summary("sqlite3 executemany, no indexes", args.verdicts, timings["bare"])
    print(
        f"store / driver on the store's table: {store[0] / indexed[0]:.2f} "
        f"(CPU {store[1] / indexed[1]:.2f})"
    )
    print(
        f"store / driver without indexes: {store[0] / bare[0]:.2f} (CPU {store[1] / bare[1]:.2f})"
    )


if __name__ == "__main__":
    main()
