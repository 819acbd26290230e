"""What the judging tests share: the example files, a key in the environment, a verdict as
the fake judge answers it, and the `judgekit judge` command line for a subprocess."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

SECRET = "sk-test-SECRET-7c1f0a9e8d7c6b5a"
SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
TASKS = REPO / "tasks"
RUBRIC = REPO / "rubrics" / "goal_completion.yaml"


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def refund_runs(path: Path, answers: Sequence[str], *, first: int = 0) -> Path:
    """A runs file at ``path``: one refund run per answer, ids ``r{first}``, ``r{first+1}``…"""
    path.write_text(
        "".join(
            json.dumps(
                {
                    "run_id": f"r{i}",
                    "task_id": "refund_full",
                    "input": "Order A100 arrived broken. Refund it in full.",
                    "tool_calls": [],
                    "final_answer": answer,
                }
            )
            + "\n"
            for i, answer in enumerate(answers, start=first)
        )
    )
    return path


def ticket_answers(n: int) -> list[str]:
    """``n`` distinct right answers, so no two runs share a cache entry."""
    return [f"Refund of $40 issued for A100 (ticket {i})." for i in range(n)]


def verdict_json(score: Any, reason: str = "checked") -> str:
    return json.dumps({"reason": reason, "score": score})


def judge_command(runs: Path, base_url: str, out: Path, *extra: str) -> list[str]:
    """`python -m judgekit judge …`, for a subprocess: see :func:`judge_args`."""
    return [sys.executable, "-m", "judgekit", *judge_args(runs, base_url, out, *extra)]


def judge_args(runs: Path, base_url: str, out: Path, *extra: str) -> list[str]:
    """`judge RUNS` with the goal_completion rubric and the example tasks, into ``out``,
    printing JSON."""
    return [
        "judge",
        str(runs),
        "--rubric",
        str(RUBRIC),
        "--tasks",
        str(TASKS),
        "--base-url",
        base_url,
        "--out",
        str(out),
        "--json",
        *extra,
    ]
