"""`judgekit judge --batch` as a user runs it: killed while polling, resumed by a rerun."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from judgekit.testing import FakeLLMServer
from tests.judging.conftest import judge_command, verdict_json
from tests.judging.test_batch import fifty_runs


def test_a_killed_process_is_resumed_by_polling_the_same_batch(tmp_path: Path) -> None:
    runs, out = fifty_runs(tmp_path), tmp_path / "out"
    records = tmp_path / ".judgekit" / "batches"
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        base = server.openai_base_url
        slow = judge_command(runs, base, out, "--no-store", "--batch", "--poll-interval", "3600")
        process = subprocess.Popen(slow, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while not (records.exists() and any(records.iterdir())):
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "no batch was submitted within 60 s"
                time.sleep(0.05)
        finally:
            process.kill()
            _, stderr = process.communicate()
        assert process.returncode == -9
        (batch_api, batch_id, size), *more = server.batches.creates
        assert (batch_api, size, more) == ("openai", 50, [])
        assert f"submitted batch {batch_id} (50 requests)\n" in stderr.decode()
        assert not (out / "verdicts.jsonl").exists() or not (out / "verdicts.jsonl").read_text()

        fast = judge_command(runs, base, out, "--no-store", "--batch", "--poll-interval", "0.01")
        rerun = subprocess.run(fast, capture_output=True, text=True, timeout=120, check=False)
        assert server.batches.creates == [("openai", batch_id, 50)]  # polled, not resubmitted
    assert rerun.returncode == 0, rerun.stderr
    assert rerun.stderr.splitlines() == [
        f"polling batch {batch_id} (50 requests), submitted before",
        f"batch {batch_id} completed: 50 answered, 0 not",
    ]
    summary = json.loads(rerun.stdout)
    assert (summary["verdicts"], summary["api_calls"]) == (50, 50)
    assert len((out / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()) == 50
    assert list(records.iterdir()) == []


def test_poll_interval_and_batch_are_in_the_help() -> None:
    import sys

    shown = subprocess.run(
        [sys.executable, "-m", "judgekit", "judge", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "--batch" in shown
    assert "--poll-interval SECONDS" in shown
