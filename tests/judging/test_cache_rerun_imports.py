"""Judging again wholly from the cache asks nothing and prices nothing: it loads neither the
provider's SDK nor the price table, and still records in the store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from judgekit.testing import FakeLLMServer

REPO = Path(__file__).resolve().parents[2]
RUBRIC = """\
id: refunds
description: Did the agent refund the order?
scale: binary
applies_to: final_answer
prompt: |
  The user asked: <task>{input}</task>
  The agent answered: <answer>{final_answer}</answer>
  Score "pass" when the refund is reported done, else "fail".
judge: {model: openai/gpt-4o-mini, temperature: 0, samples: 1}
"""


def test_judging_again_from_the_cache_loads_no_sdk_or_price_table(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    run = {"task_id": "t", "tool_calls": [], "final_answer": "Refunded."}
    lines = [
        json.dumps({"run_id": f"r/{i}", "input": f"Refund order {i}.", **run}) + "\n"
        for i in range(5)
    ]
    runs.write_text("".join(lines), encoding="utf-8")
    env = {
        **os.environ,
        "JUDGEKIT_HOME": str(tmp_path / "home"),
        "OPENAI_API_KEY": "sk-test-startup",
    }
    env.pop("JUDGEKIT_DB", None)
    rubric = tmp_path / "refunds.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    verdict = json.dumps({"reason": "ok", "score": "pass"})
    with FakeLLMServer(reply=lambda request: verdict) as server:
        judge = [sys.executable, "-X", "importtime", "-m", "judgekit", "judge", str(runs)]
        judge += ["--rubric", str(rubric), "--base-url", server.openai_base_url]
        first = subprocess.run(
            [*judge, "--out", str(tmp_path / "a")],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert first.returncode == 0, first.stderr
        again = subprocess.run(
            [*judge, "--out", str(tmp_path / "b")],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert server.calls == 5
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1:2] == [
        "0 API calls, 5 cache hits, 0 input + 0 output tokens, cost $0.0000"
    ]
    assert (
        f"in the store sqlite:///{tmp_path / 'home' / 'judgekit.sqlite'} (batch 1)" in again.stdout
    )
    imported = [_top_modules(run.stderr) for run in (first, again)]
    assert {"click", "openai", "genai_prices"} <= imported[0]  # it asked, and priced
    assert imported[1] & {"openai", "genai_prices"} == set()


def _top_modules(importtime: str) -> set[str]:
    return {line.rpartition("|")[2].strip().split(".")[0] for line in importtime.splitlines()}
