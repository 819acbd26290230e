"""`judgekit run` and `judgekit store import` killed with SIGKILL at 20 random moments each:
what had finished is neither lost nor written twice, and the rerun completes — in the files
and in the store."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

from sqlalchemy import select

from judgekit import Task, World
from judgekit._util.folder_lock import LOCK_FILE, PID_FILE
from judgekit.formats.task import load_tasks
from judgekit.store import open_store, schema
from judgekit.store.record_files import table_counts
from tests.conftest import REPO
from tests.processes import judgekit, listing, start_judgekit

SHOP_TASKS = REPO / "tasks" / "shop.yaml"
KILLS = 20
TRIALS = 300  # 4 shop tasks: 1200 trials, about 3 s of work at 2 ms a trial


def paced_agent(task: Task, world: World) -> str:
    """The shop's stub at 2 ms a trial, so a run lasts long enough to be killed mid-work."""
    from examples.shop import agent

    time.sleep(0.002)
    return agent(task, world)


def home() -> Path:
    return Path(os.environ["JUDGEKIT_HOME"])


def kill_after(args: list[str | Path], delay_s: float, *, locking: Path | None = None) -> bool:
    """Start the command, SIGKILL it ``delay_s`` after it started (or, given ``locking``, after
    it took that folder's lock: start-up time varies with the machine's load, and writes
    nothing); whether it was still at work."""
    process = start_judgekit(args, home())
    if locking is not None:
        wait_for_lock(process, locking)
    time.sleep(delay_s)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)
    return process.returncode == -signal.SIGKILL


def wait_for_lock(process: subprocess.Popen[str], folder: Path) -> None:
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        try:
            if (folder / PID_FILE).read_text() == f"{process.pid}\n":
                return
        except FileNotFoundError:
            pass
        time.sleep(0.002)


def whole_lines(path: Path) -> list[bytes]:
    """The lines a kill left whole (a last line without its newline is not one)."""
    if not path.exists():
        return []
    return [line for line in path.read_bytes().splitlines(keepends=True) if line.endswith(b"\n")]


def finished_trials(out: Path) -> dict[tuple[str, int], bytes]:
    """(task, trial) -> its line in runs.jsonl, checking that none is written twice."""
    found: dict[tuple[str, int], bytes] = {}
    for line in whole_lines(out / "runs.jsonl"):
        run = json.loads(line)
        key = (run["task_id"], run["trial"])
        assert key not in found, f"{key} written twice"
        found[key] = line
    return found


def test_run_killed_anywhere_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    base: list[str | Path] = [
        "run",
        "--tasks",
        SHOP_TASKS,
        "--agent",
        "tests.test_kill_anywhere:paced_agent",
        "--trials",
        str(TRIALS),
        "--out",
        out,
        "--resume",
        "--json",
    ]
    rng = random.Random(20261202)
    finished: dict[tuple[str, int], bytes] = {}
    mid_trials = interrupted = 0
    for _ in range(KILLS):
        concurrency = rng.choice(["1", "4"])
        delay = rng.uniform(0.0, 0.8)
        interrupted += kill_after([*base, "--concurrency", concurrency], delay, locking=out)
        now = finished_trials(out)
        for key, line in finished.items():
            assert now.get(key) == line, f"{key} lost or rewritten by a kill"
        mid_trials += len(finished) < len(now) < 4 * TRIALS
        finished = now
    # most kills stop the command at work, several of them between two trials
    assert interrupted >= KILLS // 2 and mid_trials >= 3, (interrupted, mid_trials)

    rerun = judgekit(base, home())
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["runs"] == 4 * TRIALS
    final = finished_trials(out)
    task_ids = [task.id for task in load_tasks(SHOP_TASKS)]
    assert sorted(final) == sorted((t, n) for t in task_ids for n in range(1, TRIALS + 1))
    assert len((out / "runs.jsonl").read_bytes().splitlines()) == 4 * TRIALS
    for key, line in finished.items():
        assert final[key] == line  # kept, not run again
    run_ids = sorted(json.loads(line)["run_id"] for line in final.values())
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["run_id"] for r in results) == run_ids
    assert len((out / "results.csv").read_text().splitlines()) == 1 + 4 * TRIALS
    # no temporary file a kill left behind survives the rerun
    assert listing(out) == [LOCK_FILE, "results.csv", "results.jsonl", "runs.jsonl"]
    with open_store() as store:
        assert table_counts(store) == {
            "batches": 1,
            "runs": 4 * TRIALS,
            "grades": 4 * TRIALS,
            "verdicts": 0,
            "calibrations": 0,
            "promotions": 0,
        }
        assert sorted(run.run_id for run in store.runs().values()) == run_ids


def stored_run_ids() -> Counter[str]:
    """How many times each run id is in the store's runs table (any batch)."""
    if not (home() / "judgekit.sqlite").exists():
        return Counter()
    with open_store() as store, store.engine.connect() as connection:
        return Counter(connection.execute(select(schema.runs.c.run_id)).scalars())


def grades_stored() -> int:
    """How many grades the store holds."""
    if not (home() / "judgekit.sqlite").exists():
        return 0
    with open_store() as store:
        return store.count("grades")


def test_store_import_killed_anywhere_records_each_run_once(tmp_path: Path) -> None:
    shop = [json.loads(line) for line in (REPO / "examples" / "runs" / "shop.jsonl").open()]
    runs = tmp_path / "runs.jsonl"
    n = 2500
    with runs.open("w") as fh:
        for i in range(n):
            run = {**shop[i % len(shop)], "run_id": f"run-{i}"}
            fh.write(json.dumps(run) + "\n")
    command: list[str | Path] = ["store", "import", runs, "--tasks", SHOP_TASKS]
    rng = random.Random(20261213)
    recorded: Counter[str] = Counter()
    interrupted = unfinished = grades = 0
    for _ in range(KILLS):
        interrupted += kill_after(command, rng.uniform(0.3, 1.8))
        now = stored_run_ids()
        assert all(count == 1 for count in now.values()), "a run recorded twice"
        assert set(recorded) <= set(now), "a recorded run lost by a kill"
        assert grades_stored() >= grades, "recorded grades lost by a kill"
        recorded, grades = now, grades_stored()
        unfinished += grades < n
    # most kills stop the import at work, several before it recorded everything
    assert interrupted >= KILLS // 2 and unfinished >= 2, (interrupted, unfinished)

    rerun = judgekit(command, home())
    assert rerun.returncode == 0, rerun.stderr
    assert rerun.stdout.startswith(f"{runs}: {n} runs and {n} grades recorded (batch ")
    assert stored_run_ids() == Counter({f"run-{i}": 1 for i in range(n)})
    with open_store() as store:
        assert table_counts(store) == {
            "batches": 1,
            "runs": n,
            "grades": n,
            "verdicts": 0,
            "calibrations": 0,
            "promotions": 0,
        }
