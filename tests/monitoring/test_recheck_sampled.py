"""`judgekit monitor --recheck` after a --sample judging: the judge asked again about every
labelled run, those the sample left out included, since `judge` records every run of the
file in the store and only the sampled ones' verdicts."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.store import open_store
from judgekit.testing import FakeLLMServer
from tests.monitoring.test_recheck import TRUTH, judge_with_error_rate, promote_answer_ok


def test_a_recheck_reaches_the_labelled_runs_a_sample_did_not_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-recheck")
    rubric = promote_answer_ok(tmp_path, labelled_at=datetime(2026, 11, 1, tzinfo=UTC))
    runs = tmp_path / "night" / "runs.jsonl"
    runs.parent.mkdir()
    runs.write_text(
        "".join(
            json.dumps(
                {
                    "run_id": r,
                    "task_id": "t",
                    "tool_calls": [],
                    "final_answer": f"Done as asked (run {r}).",
                }
            )
            + "\n"
            for r in TRUTH
        )
    )
    with FakeLLMServer(reply=judge_with_error_rate(0.03)) as server:
        judged = CliRunner().invoke(
            main,
            ["judge", str(runs), "--rubric", str(rubric), "--base-url", server.openai_base_url,
             "--out", str(runs.parent), "--sample", "20%", "--json"],
        )  # fmt: skip
        assert judged.exit_code == 0, judged.output
        with open_store() as store:  # the sample's verdicts, beside every run of the file
            assert len(store.verdicts("answer_ok")) == 26
        rechecked = CliRunner().invoke(
            main,
            ["monitor", "--recheck", str(rubric), "--base-url", server.openai_base_url, "--json"],
        )
    assert json.loads(judged.stdout)["sample"]["picked"] == 26
    assert rechecked.exit_code == 0, rechecked.output
    found = json.loads(rechecked.stdout)["recheck"]
    assert (found["now"]["n"], found["drifted"]) == (100, False)
