"""`judgekit judge` records the runs once and the verdicts in the batch of the runs file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.store import open_store
from judgekit.store.record_files import runs_batch_key
from judgekit.testing import FakeLLMServer
from judgekit.testing.fake_llm_server import FakeRequest
from tests.conftest import REPO
from tests.store.recording.conftest import (
    SHOP_RUNS,
    SHOP_TASKS,
    counts,
    invoke,
    rows,
    store_file,
    store_url,
)

RUBRIC = REPO / "rubrics" / "goal_completion.yaml"

pytestmark = pytest.mark.usefixtures("pinned_commit")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-recording")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def by_answer(request: FakeRequest) -> str:
    score = "pass" if "Refund" in request.text else "fail"
    return json.dumps({"reason": "checked", "score": score})


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(reply=by_answer) as running:
        yield running


def judge(server: FakeLLMServer, out: Path, *extra: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        main,
        [
            "judge",
            str(SHOP_RUNS),
            "--rubric",
            str(RUBRIC),
            "--tasks",
            str(SHOP_TASKS.parent),
            "--base-url",
            server.openai_base_url,
            "--out",
            str(out),
            *extra,
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def test_verdicts_go_to_the_batch_of_the_runs(server: FakeLLMServer, tmp_path: Path) -> None:
    code, out, _ = judge(server, tmp_path / "a")
    assert code == 0
    assert out.splitlines()[-2:] == [
        f"wrote {tmp_path / 'a' / 'verdicts.jsonl'}",
        f"recorded 18 verdicts in the store {store_url()} (batch 1)",
    ]
    assert counts() == rows(batches=1, runs=18, verdicts=18)
    with open_store() as store:
        (batch,) = store.batches()
        stored = store.runs()
    assert (batch.batch_key, batch.source) == (runs_batch_key(SHOP_RUNS), "judge")
    assert len(stored) == 18  # there for a judge to be asked again later
    # Judging again (all cached) and grading the same runs: still one batch.
    code, out, _ = judge(server, tmp_path / "b", "--json")
    assert code == 0
    assert json.loads(out)["store"] == {"url": store_url(), "batch_id": 1}
    code, _, _ = invoke("grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path / "c")
    assert code == 0
    assert counts() == rows(batches=1, runs=18, grades=18, verdicts=18)


def test_judge_no_store(server: FakeLLMServer, tmp_path: Path) -> None:
    code, out, _ = judge(server, tmp_path, "--no-store", "--json")
    assert code == 0
    report: dict[str, Any] = json.loads(out)
    assert (report["verdicts"], report["store"]) == (18, None)
    assert not store_file().exists()


def test_more_verdicts_than_one_transaction(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    run = {
        "task_id": "refund_full",
        "input": "Order A100 arrived broken. Refund it in full.",
        "tool_calls": [],
    }
    # Distinct answers: each is a call, and the verdicts span three store transactions.
    runs.write_text(
        "".join(
            json.dumps({**run, "run_id": f"r{i}", "final_answer": f"Refund {i} issued."}) + "\n"
            for i in range(120)
        )
    )
    with FakeLLMServer(reply=by_answer) as server:
        result = CliRunner().invoke(
            main,
            [
                "judge",
                str(runs),
                "--rubric",
                str(RUBRIC),
                "--tasks",
                str(SHOP_TASKS),
                "--base-url",
                server.openai_base_url,
                "--out",
                str(tmp_path / "out"),
                "--json",
            ],
        )
    assert result.exit_code == 0, result.output
    assert counts() == rows(batches=1, runs=120, verdicts=120)
