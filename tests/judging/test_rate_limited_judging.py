"""Judging at the provider's pace: against a rate-limited fake server every run gets its
verdict with few 429s, --rpm holds the pace, and bad values are refused."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.testing import FakeLLMServer, FakeRequest, RateLimit
from tests.conftest import REPO
from tests.judging.conftest import RUBRIC, judge_args, judge_command, verdict_json

ONE_RUN = {"task_id": "refund_full", "input": "Refund order A100.", "tool_calls": []}


def runs_file(tmp_path: Path, count: int, prefix: str = "r") -> Path:
    runs = tmp_path / f"{prefix}-runs.jsonl"
    runs.write_text(
        "".join(
            json.dumps(
                {**ONE_RUN, "run_id": f"{prefix}{i}", "final_answer": f"Refunded {prefix}{i}."}
            )
            + "\n"
            for i in range(count)
        )
    )
    return runs


def judged(runs: Path, base_url: str, out: Path, *extra: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, judge_args(runs, base_url, out, "--no-store", *extra))
    assert result.exit_code == 0, (result.output, result.exception)
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def verdict_ids(out: Path) -> list[str]:
    return sorted(json.loads(line)["run_id"] for line in (out / "verdicts.jsonl").open())


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "anthropic/claude-haiku-4-5"])
def test_a_limited_server_gives_every_verdict_with_few_429s(tmp_path: Path, model: str) -> None:
    runs = runs_file(tmp_path, 120)
    limit = RateLimit(requests_per_minute=1200, window_s=2.0)  # 40 a window
    with FakeLLMServer(
        reply=lambda request: verdict_json("pass"), latency_s=0.01, rate_limit=limit
    ) as server:
        base_url = (
            server.openai_base_url if model.startswith("openai") else server.anthropic_base_url
        )
        out = tmp_path / "out"
        report = judged(runs, base_url, out, "--concurrency", "32", "--model", model)
        counts = server.status_counts
        assert server.rate_window is not None
        windows = server.rate_window.admitted_per_window
    assert report["verdicts"] == 120 and report["not_judged"] == 0
    assert verdict_ids(out) == sorted(f"r{i}" for i in range(120))
    assert counts[200] == 120
    assert counts.get(429, 0) <= 3  # at most 2% of the requests collide
    assert max(windows) <= 40 and sum(windows) == 120


def test_rpm_holds_judging_to_its_pace(tmp_path: Path) -> None:
    runs = runs_file(tmp_path, 30)
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        started = time.monotonic()
        report = judged(runs, server.openai_base_url, tmp_path / "out", "--rpm", "600")
        elapsed = time.monotonic() - started
        assert server.status_counts == {200: 30}
    assert report["verdicts"] == 30
    # 10 a second, 10 at once: the last of 30 starts 2 s after the first.
    assert elapsed >= 1.95


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--rpm", "0"], "Invalid value for '--rpm': 0 is not in the range x>=1."),
        (["--tpm", "-3"], "Invalid value for '--tpm': -3 is not in the range x>=1."),
        (["--rpm", "lots"], "Invalid value for '--rpm': 'lots' is not a valid integer range."),
        (
            ["--share-rate-limits"],
            "--share-rate-limits needs --rpm or --tpm: there is no limit to share",
        ),
        (
            ["--rpm", "60", "--batch"],
            "--rpm and --tpm pace requests sent one by one; --batch sends one batch: use one "
            "or the other",
        ),
    ],
)
def test_bad_rate_options_exit_2_saying_why(tmp_path: Path, extra: list[str], message: str) -> None:
    runs = runs_file(tmp_path, 1)
    result = CliRunner().invoke(
        main,
        [
            "judge",
            str(runs),
            "--rubric",
            str(RUBRIC),
            "--base-url",
            "http://127.0.0.1:9/v1",
            *extra,
        ],
    )
    assert result.exit_code == 2
    assert message in result.output


def test_two_judge_processes_sharing_rpm_stay_within_it_together(tmp_path: Path) -> None:
    arrivals: list[tuple[float, str]] = []
    lock = threading.Lock()

    def reply(request: FakeRequest) -> str:
        found = re.search(r"Refunded ([ab])[0-9]+", request.text)
        with lock:
            arrivals.append((time.monotonic(), found[1] if found else "?"))
        return verdict_json("pass")

    env = {**os.environ, "PYTHONPATH": str(REPO), "JUDGEKIT_HOME": str(tmp_path / "home")}
    shared = ("--rpm", "600", "--share-rate-limits", "--no-store", "--concurrency", "4")
    with FakeLLMServer(reply=reply) as server:
        jobs = [
            subprocess.Popen(
                judge_command(
                    runs_file(tmp_path, 25, prefix),
                    server.openai_base_url,
                    tmp_path / prefix,
                    *shared,
                ),
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for prefix in ("a", "b")
        ]
        outcomes = [job.communicate(timeout=120) for job in jobs]
    assert [job.returncode for job in jobs] == [0, 0], outcomes
    assert [json.loads(out)["verdicts"] for out, _ in outcomes] == [25, 25]
    times = sorted(moment for moment, _ in arrivals)
    assert len(times) == 50
    # The two overlapped: each process's requests arrived while the other's did.
    firsts = {who: min(t for t, w in arrivals if w == who) for who in "ab"}
    lasts = {who: max(t for t, w in arrivals if w == who) for who in "ab"}
    assert firsts["a"] < lasts["b"] and firsts["b"] < lasts["a"]
    # 600 a minute is 10 a second for both together. The first requests bunch on the way
    # (each process loads the SDK at its first request, the bucket counting on), so the
    # steady pace is read from the last 20: 1.9 s at 10 a second, where two buckets of
    # their own would have let them through at 20 a second (0.95 s).
    assert times[-1] - times[-20] >= 1.7
    assert times[-1] - times[0] >= 2.0
