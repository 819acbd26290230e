"""What the probe tests share: a key in the environment, a project folder with rubrics/,
runs files, and the fake judge's view of a request."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from judgekit.testing import FakeRequest


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-probes")
    for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


BINARY_RUBRIC = """\
id: helpful
scale: binary
prompt: |
  The user asked:
  {input}

  The agent answered:
  {final_answer}

  Did the answer do what was asked?
judge:
  model: openai/gpt-4o-mini
"""

PAIRWISE_RUBRIC = """\
id: better
scale: pairwise
prompt: |
  Question: {input}

  Answer A: {answer_a}

  Answer B: {answer_b}

  Which answer is better?
judge:
  model: openai/gpt-4o-mini
"""


def project(tmp_path: Path, rubric: str, *, policy: str = "") -> Path:
    """``tmp_path/rubrics/<id>.yaml``; returns the rubric file."""
    rubrics = tmp_path / "rubrics"
    rubrics.mkdir(exist_ok=True)
    rubric_id = re.search(r"^id: (\S+)", rubric, re.M).group(1)  # type: ignore[union-attr]
    path = rubrics / f"{rubric_id}.yaml"
    path.write_text(rubric + policy, encoding="utf-8")
    return path


def write_runs(path: Path, runs: Iterable[dict[str, Any]]) -> Path:
    lines = []
    for run in runs:
        lines.append(json.dumps({"task_id": "t", "tool_calls": [], **run}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def quoted(request: FakeRequest, name: str) -> str:
    """The text judgekit quoted for placeholder ``name`` in the judge prompt."""
    # the whole conversation: a repair request repeats the prompt before the bad answer
    match = re.search(rf"<untrusted_{name}>(.*?)</untrusted_{name}>", request.text, re.S)
    assert match is not None, request.text
    return match.group(1)


def verdict(score: str) -> str:
    return json.dumps({"reason": "read it", "score": score})
