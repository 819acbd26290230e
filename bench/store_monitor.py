"""Recording verdicts into the SQLite store, and the monitor's 90-day query over them.

    python bench/store_monitor.py [--verdicts 1000000] [--days 90]
    python bench/store_monitor.py --verdicts 10000000 --fill driver
    python bench/store_monitor.py --store /tmp/judgekit-bench-…/store.sqlite

With ``--fill driver`` the verdicts are written straight into a migrated store file with the
sqlite3 driver (sorted by key, the reading index built afterwards, then the daily totals
folded in as the store's writer folds them), which takes minutes for ten million where the
store takes longer; only the queries are timed then. ``--store`` times them again on a
store such a run left.

Writes N verdicts of one rubric spread over the last D days (one batch per day) with
``Store.record_verdicts`` and reports rows per second; the baseline, measured in the same
run on a second file, is the same rows inserted with the sqlite3 driver's executemany and
no upsert, no validation, no JSON columns: the floor the store's own work sits on. Then it
times the monitor's query over the whole 90 days (one point per day, median of 5); the
target is under one second. Its baselines, in the same run: the store's row count (``SELECT
count(*)`` over the verdicts, what any query reading the rows themselves costs at least),
and the same query from the verdicts themselves, as a ``--suite`` filter reads them.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest.mock import patch

from judgekit.formats.verdict import Verdict
from judgekit.monitoring.monitor import build_monitor_report
from judgekit.monitoring.series import RubricScope, rubric_series
from judgekit.store import Store, open_store, queries, schema
from judgekit.store.bulk import bulk_columns
from judgekit.store.day_totals import fold_new_verdicts

RUBRIC, VERSION, MODEL = "goal_completion", "3f2a9c", "openai/gpt-4o-mini"


def verdicts_of_day(day: int, per_day: int, start: datetime, rng: random.Random) -> list[Verdict]:
    at = start + timedelta(days=day)
    return [
        Verdict(
            run_id=f"shop/task{i % 40}/{i}",
            rubric_id=RUBRIC,
            rubric_version=VERSION,
            model=MODEL,
            status="scored",
            score="pass" if rng.random() < 0.8 else "fail",
            reason="The refund was issued as asked.",
            input_tokens=812,
            output_tokens=41,
            cost_usd=0.00014,
            latency_s=0.8,
            at=at + timedelta(seconds=i),
        )
        for i in range(per_day)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verdicts", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--fill", choices=["store", "driver"], default="store")
    parser.add_argument("--store", type=Path, help="time the queries on this filled store")
    args = parser.parse_args()
    if args.store is not None:
        time_queries_on_store(args.store)
        return
    if args.fill == "driver":
        time_queries_on_driver_fill(args.verdicts, args.days)
        return
    per_day = args.verdicts // args.days
    total = per_day * args.days
    start = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(
        days=args.days
    )
    folder = Path(tempfile.mkdtemp(prefix="judgekit-bench-"))
    rng = random.Random(7)
    days = [verdicts_of_day(day, per_day, start, rng) for day in range(args.days)]
    print(f"{total:,} verdicts over {args.days} days ({per_day:,} a day), SQLite in {folder}")

    with open_store(f"sqlite:///{folder / 'store.sqlite'}") as store:
        began = time.perf_counter()
        for day, verdicts in enumerate(days):
            store.record_verdicts(verdicts, store.batch(key=f"runs:day{day}", source="judge"))
        recorded = time.perf_counter() - began
        store_rate = total / recorded
        print(f"store.record_verdicts: {recorded:.1f} s, {store_rate:,.0f} rows/s")

        baseline = _driver_floor(folder / "floor.sqlite", days)
        print(
            f"baseline, sqlite3 executemany without upsert or validation: "
            f"{total / baseline:,.0f} rows/s; store at {baseline / recorded:.2f} of it"
        )

        time_queries(store, start - timedelta(days=1), total)


def time_queries(store: Store, since: datetime, total: int) -> None:
    scope = RubricScope(RUBRIC, RUBRIC, "proportion", "gating", VERSION, MODEL)
    timings = []
    for _ in range(5):
        began = time.perf_counter()
        series = rubric_series(store, scope, since=since, by="day")
        timings.append(time.perf_counter() - began)
    assert sum(p.n for p in series.points) == total, "the query lost verdicts"
    median = statistics.median(timings)
    print(
        f"monitor query, {len(series.points)} daily points over {total:,} verdicts: "
        f"median {median * 1000:.0f} ms, best {min(timings) * 1000:.0f}, "
        f"worst {max(timings) * 1000:.0f} (target < 1000 ms)"
    )
    # A baseline no query of the store can go under by reading its rows: counting them.
    counts = []
    for _ in range(5):
        began = time.perf_counter()
        rows = store.count("verdicts")
        counts.append(time.perf_counter() - began)
    assert rows == total, "the store holds other verdicts"
    print(
        f"the store's row count (SELECT count(*) FROM verdicts), {rows:,} rows: median "
        f"{statistics.median(counts) * 1000:.0f} ms; the monitor query at "
        f"{median / statistics.median(counts):.4f}× it"
    )
    began = time.perf_counter()
    report = build_monitor_report(store, since=since)
    whole = time.perf_counter() - began
    print(f"whole monitor report ({len(report.series)} series, drift tests): {whole * 1000:.0f} ms")
    # The baseline: the same query from the verdicts themselves (as a --suite filter reads).
    with patch.object(queries, "reads_totals", lambda *args, **kwargs: False):
        began = time.perf_counter()
        raw = rubric_series(store, scope, since=since, by="day")
        from_verdicts = time.perf_counter() - began
    assert raw.points == series.points, "the daily totals and the verdicts disagree"
    print(
        f"the same query from the verdicts: {from_verdicts * 1000:.0f} ms, "
        f"{from_verdicts / statistics.median(timings):,.0f}x the totals' median"
    )


def time_queries_on_store(path: Path) -> None:
    """The queries again on a store an earlier ``--fill driver`` run left."""
    with open_store(f"sqlite:///{path}") as store:
        with store.engine.connect() as connection:
            first = connection.exec_driver_sql("SELECT min(day) FROM verdict_day_totals").scalar()
        since = datetime.fromisoformat(str(first)).replace(tzinfo=UTC) - timedelta(days=1)
        time_queries(store, since, store.count("verdicts"))


def time_queries_on_driver_fill(total: int, days: int) -> None:
    """Ten million verdicts written with the bare driver (the store's own recording is timed
    by bench/store_record.py), then the monitor's queries over them."""
    per_day = total // days
    start = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(
        days=days
    )
    path = Path(tempfile.mkdtemp(prefix="judgekit-bench-")) / "store.sqlite"
    with open_store(f"sqlite:///{path}") as store:
        batches = [store.batch(key=f"runs:day{day}", source="judge") for day in range(days)]
    began = time.perf_counter()
    _fill_with_driver(path, batches, per_day, start)
    print(
        f"{per_day * days:,} verdicts over {days} days written with the driver in "
        f"{time.perf_counter() - began:.0f} s ({path.stat().st_size / 1e9:.1f} GB, {path})"
    )
    with open_store(f"sqlite:///{path}") as store:
        time_queries(store, start - timedelta(days=1), per_day * days)


def _fill_with_driver(path: Path, batches: list[int], per_day: int, start: datetime) -> None:
    names = bulk_columns(schema.verdicts)
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA synchronous = OFF")
    reading_indexes = [
        sql
        for (sql,) in connection.execute(
            "SELECT sql FROM sqlite_master WHERE tbl_name = 'verdicts' AND name LIKE 'ix_%'"
        )
    ]
    for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE tbl_name = 'verdicts' AND name LIKE 'ix_%'"
    ).fetchall():
        connection.execute(f"DROP INDEX {name}")
    insert = f"INSERT INTO verdicts ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
    rng = random.Random(7)
    for day, batch in enumerate(batches):
        moment = start + timedelta(days=day)
        text, date = moment.isoformat(timespec="microseconds"), moment.date().isoformat()
        rows = []
        for i in range(per_day):
            passed = rng.random() < 0.8
            run = (f"shop/task{i % 40}/{i}", RUBRIC, VERSION, MODEL, "scored")
            score = ('"pass"', 1.0) if passed else ('"fail"', 0.0)
            rest = ("The refund was issued as asked.", None, None, None, None)
            usage = (812, 41, 0.00014, 0.8, 0, text, date, batch, None, None)  # no jurors
            rows.append(run + score + rest + usage)
        rows.sort()  # in the unique key's order: appended, not scattered
        connection.execute("BEGIN")
        connection.executemany(insert, rows)
        connection.execute("COMMIT")
    for sql in reading_indexes:
        connection.execute(sql)
    # What the store's writer does after each transaction: the new verdicts' daily totals.
    began = time.perf_counter()
    connection.execute("BEGIN")
    fold_new_verdicts(connection)
    connection.execute("COMMIT")
    print(f"their daily totals folded in: {time.perf_counter() - began:.1f} s")
    connection.close()


def _driver_floor(path: Path, days: list[list[Verdict]]) -> float:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute(
        "CREATE TABLE verdicts (id INTEGER PRIMARY KEY, run_id TEXT, rubric_id TEXT, "
        "rubric_version TEXT, model TEXT, status TEXT, score TEXT, reason TEXT, "
        "input_tokens INTEGER, output_tokens INTEGER, cost_usd REAL, latency_s REAL, at TEXT)"
    )
    began = time.perf_counter()
    for verdicts in days:
        rows = [
            (
                v.run_id,
                v.rubric_id,
                v.rubric_version,
                v.model,
                v.status,
                v.score,
                v.reason,
                v.input_tokens,
                v.output_tokens,
                v.cost_usd,
                v.latency_s,
                v.at.isoformat(),
            )
            for v in verdicts
        ]
        connection.execute("BEGIN")
        connection.executemany(
            "INSERT INTO verdicts (run_id, rubric_id, rubric_version, model, status, score, "
            "reason, input_tokens, output_tokens, cost_usd, latency_s, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        connection.execute("COMMIT")
    elapsed = time.perf_counter() - began
    connection.close()
    return elapsed


if __name__ == "__main__":
    main()
