"""What the judging tests share: the example files, a key in the environment, a verdict as
the fake judge answers it, and the `judgekit judge` command line for a subprocess."""

from __future__ import annotations

import json
import sys
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
