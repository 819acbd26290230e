"""`judgekit judge --batch` as a user runs it: killed while polling, or between the batch
API's acceptance of a batch and its reply, resumed by a rerun that pays for no second batch."""

from __future__ import annotations

import json
import select
import subprocess
import time
from pathlib import Path

import pytest

from judgekit.testing import FakeLLMServer
from tests.judging.conftest import judge_command, verdict_json
from tests.judging.test_batch import fifty_runs


def read_submitted_line(process: subprocess.Popen[bytes]) -> bytes:
    """The stderr line saying a batch was submitted (its id recorded just before), read as
    it comes: the process then polls in silence."""
    assert process.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], 1.0)
        if ready:
            line = process.stderr.readline()
            assert line, process.communicate()  # the process ended
            if line.startswith(b"submitted batch"):
                return line
    raise AssertionError("no batch was submitted within 60 s")


def test_a_killed_process_is_resumed_by_polling_the_same_batch(tmp_path: Path) -> None:
    runs, out = fifty_runs(tmp_path), tmp_path / "out"
    records = tmp_path / ".judgekit" / "batches"
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        base = server.openai_base_url
        slow = judge_command(runs, base, out, "--no-store", "--batch", "--poll-interval", "3600")
        process = subprocess.Popen(slow, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            line = read_submitted_line(process)
        finally:
            process.kill()
            process.communicate()
        assert process.returncode == -9
        (batch_api, batch_id, size), *more = server.batches.creates
        assert (batch_api, size, more) == ("openai", 50, [])
        assert line.decode() == f"submitted batch {batch_id} (50 requests)\n"
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


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "anthropic/claude-haiku-4-5"])
def test_a_kill_between_the_batch_s_acceptance_and_its_reply_pays_for_one_batch(
    tmp_path: Path, model: str
) -> None:
    """The batch's id used to be recorded only once the reply arrived: a kill before it, and
    the rerun submitted (and paid for) a second batch of the same requests."""
    runs, out = fifty_runs(tmp_path), tmp_path / "out"
    records = tmp_path / ".judgekit" / "batches"
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        api = model.split("/")[0]
        base = server.openai_base_url if api == "openai" else server.anthropic_base_url
        command = judge_command(
            runs, base, out, "--model", model, "--no-store", "--batch", "--poll-interval", "0.01"
        )
        server.batches.hold_creates()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert server.batches.wait_held(60), "no batch was created within 60 s"
        finally:
            process.kill()  # accepted by the server, its reply not yet read
            _, stderr = process.communicate()
        server.batches.release_creates()
        assert process.returncode == -9
        [(created_api, batch_id, size)] = server.batches.creates
        assert (created_api, size) == (api, 50)
        assert b"submitted batch" not in stderr
        [record] = records.iterdir()
        intent = json.loads(record.read_text(encoding="utf-8"))
        assert (intent["batch_id"], intent["requests"]) == (None, 50)

        rerun = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        assert server.batches.creates == [(api, batch_id, 50)]  # found, not submitted again
        answered = sorted(request.text for request in server.batches.answered)
    assert rerun.returncode == 0, rerun.stderr
    end = "completed" if api == "openai" else "ended"
    assert rerun.stderr.splitlines() == [
        f"polling batch {batch_id} (50 requests), found by the tag recorded before it was "
        "submitted",
        f"batch {batch_id} {end}: 50 answered, 0 not",
    ]
    summary = json.loads(rerun.stdout)
    assert (summary["verdicts"], summary["api_calls"]) == (50, 50)
    lines = (out / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(line)["run_id"] for line in lines) == [
        f"batch/{i:02d}" for i in range(50)
    ]
    assert len(answered) == len(set(answered)) == 50  # every run judged once
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
