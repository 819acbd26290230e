"""`judgekit judge` killed with SIGKILL at 20 random moments: nothing that finished is lost or
written twice, and the rerun completes — in verdicts.jsonl and in the store."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from judgekit._util.folder_lock import PID_FILE
from judgekit.store import open_store
from judgekit.testing import FakeLLMServer
from tests.conftest import REPO
from tests.judging.conftest import judge_command, refund_runs, ticket_answers

RUNS = 600
KILLS = 20


def finished_verdicts(path: Path) -> dict[str, dict[str, Any]]:
    """The whole lines of the file (a last line cut by the kill is not a verdict), by run."""
    if not path.exists():
        return {}
    found: dict[str, dict[str, Any]] = {}
    for raw in path.read_bytes().splitlines(keepends=True):
        if not raw.endswith(b"\n"):
            continue
        verdict = json.loads(raw)
        assert verdict["run_id"] not in found, f"{verdict['run_id']} written twice"
        found[verdict["run_id"]] = verdict
    return found


def test_judge_killed_anywhere_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    runs = refund_runs(tmp_path / "runs.jsonl", ticket_answers(RUNS))
    out = tmp_path / "out"
    verdicts_file = out / "verdicts.jsonl"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "OPENAI_API_KEY": "sk-test-kill",
    }
    rng = random.Random(20261201)
    finished: dict[str, dict[str, Any]] = {}
    with FakeLLMServer(latency_s=0.05) as server:
        command = judge_command(runs, server.openai_base_url, out, "--concurrency", "2")
        for _ in range(KILLS):
            process = subprocess.Popen(
                command,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            # Timed from a moment in the judge's own progress, so a busy machine's slow
            # start-up does not push every kill before the first verdict: a quarter of the
            # kills land while it records the runs in the store, the rest while it judges.
            asked_before = server.calls
            while_judging = rng.random() < 0.75
            deadline = time.monotonic() + 60
            while process.poll() is None and (
                server.calls == asked_before if while_judging else not (out / PID_FILE).exists()
            ):
                assert time.monotonic() < deadline, "the judge never got that far"
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 1.0 if while_judging else 0.5))
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
            now = finished_verdicts(verdicts_file)
            for run_id, verdict in finished.items():
                assert now.get(run_id) == verdict, f"{run_id} lost or rewritten by a kill"
            finished = now
        rerun = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    report = json.loads(rerun.stdout)
    final = finished_verdicts(verdicts_file)
    assert sorted(final) == sorted(f"r{i}" for i in range(RUNS))
    assert len(verdicts_file.read_text().splitlines()) == RUNS
    for run_id, verdict in finished.items():
        assert final[run_id] == verdict  # kept, not asked again
    assert report["kept"] == len(finished)
    assert report["verdicts"] == RUNS
    assert 0 < len(finished) < RUNS, "the kills should land mid-work"
    with open_store() as store:
        stored = store.verdicts("goal_completion")
    assert sorted(v.run_id for v in stored) == sorted(f"r{i}" for i in range(RUNS))
