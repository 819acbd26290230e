"""Recording verdicts into the SQLite store, and the monitor's 90-day query over them.

    python bench/store_monitor.py [--verdicts 1000000] [--days 90]

Writes N verdicts of one rubric spread over the last D days (one batch per day) with
``Store.record_verdicts`` and reports rows per second; the baseline, measured in the same
run on a second file, is the same rows inserted with the sqlite3 driver's executemany and
no upsert, no validation, no JSON columns: the floor the store's own work sits on. Then it
times the monitor's query over the whole 90 days (one point per day, best of 5); the target
is under one second.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from judgekit.formats.verdict import Verdict
from judgekit.monitoring.monitor import build_monitor_report
from judgekit.monitoring.series import RubricScope, rubric_series
from judgekit.store import open_store

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
    args = parser.parse_args()
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

        since = start - timedelta(days=1)
        scope = RubricScope(RUBRIC, RUBRIC, "proportion", "gating", VERSION, MODEL)
        timings = []
        for _ in range(5):
            began = time.perf_counter()
            series = rubric_series(store, scope, since=since, by="day")
            timings.append(time.perf_counter() - began)
        assert sum(p.n for p in series.points) == total, "the query lost verdicts"
        print(
            f"monitor query, {len(series.points)} daily points over {total:,} verdicts: "
            f"best {min(timings) * 1000:.0f} ms, worst {max(timings) * 1000:.0f} ms "
            "(target < 1000 ms)"
        )
        began = time.perf_counter()
        report = build_monitor_report(store, since=since)
        whole = time.perf_counter() - began
        print(
            f"whole monitor report ({len(report.series)} series, drift tests): "
            f"{whole * 1000:.0f} ms"
        )


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
