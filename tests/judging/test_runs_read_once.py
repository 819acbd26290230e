"""`judgekit judge` reads its runs file once: for the runs it judges, the content digests of
a resume and the runs it records in the store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from click.testing import CliRunner

from judgekit._util import jsonl
from judgekit.cli import main
from judgekit.formats.run import load_runs
from judgekit.store import open_store
from judgekit.testing import FakeLLMServer
from judgekit.testing.fake_llm_server import FakeRequest
from tests.conftest import REPO

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
SHOP_TASKS = REPO / "tasks" / "shop.yaml"
RUBRIC = REPO / "rubrics" / "goal_completion.yaml"


def _verdict(request: FakeRequest) -> str:
    return json.dumps(
        {"reason": "checked", "score": "pass" if "Refund" in request.text else "fail"}
    )


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-read-once")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("JUDGEKIT_DB", raising=False)
    with FakeLLMServer(reply=_verdict) as running:
        yield running


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every file a lines reader opens, in order."""
    seen: list[Path] = []
    open_text = jsonl.open_text

    def counting(path: str | Path, **options: Any) -> IO[str]:
        seen.append(Path(path))
        return open_text(path, **options)

    monkeypatch.setattr(jsonl, "open_text", counting)
    return seen


def _judge(server: FakeLLMServer, out: Path) -> str:
    result = CliRunner().invoke(
        main,
        [
            "judge",
            str(SHOP_RUNS),
            "--rubric",
            str(RUBRIC),
            "--tasks",
            str(SHOP_TASKS),
            "--base-url",
            server.openai_base_url,
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_judging_and_its_resume_each_read_the_runs_file_once(
    server: FakeLLMServer, opened: list[Path], tmp_path: Path
) -> None:
    first = _judge(server, tmp_path / "out")
    assert opened.count(SHOP_RUNS) == 1
    assert first.splitlines()[-1].startswith("recorded 18 verdicts in the store ")
    asked = len(server.requests)
    opened.clear()
    again = _judge(server, tmp_path / "out")  # every verdict kept: the resume's digests
    assert opened.count(SHOP_RUNS) == 1
    assert len(server.requests) == asked  # none asked again
    assert again.splitlines()[-1].startswith("recorded 18 verdicts in the store ")
    with open_store() as store:
        assert sorted(store.runs()) == sorted(run.run_id for run in load_runs(SHOP_RUNS))
