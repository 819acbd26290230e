"""The judging pipeline as a library: inputs checked in order, then a session into a folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.errors import ConfigError, DataError
from judgekit.formats.verdict import Verdict
from judgekit.judging.pipeline import JudgeRequest, judging_session, prepare_judging
from judgekit.testing import FakeLLMServer
from tests.judging.conftest import RUBRIC, SHOP_RUNS, TASKS, verdict_json

UNSET = "JUDGEKIT_TEST_KEY_NOBODY_SETS"


def request(runs: Path, base_url: str, **options: object) -> JudgeRequest:
    return JudgeRequest(
        runs=runs,
        rubric_ref=str(RUBRIC),
        base_url=base_url,
        tasks_path=TASKS,
        **options,  # type: ignore[arg-type]
    )


def test_a_session_without_the_store_judges_every_run_into_the_folder(tmp_path: Path) -> None:
    seen: list[Verdict] = []
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        prepared = prepare_judging(request(SHOP_RUNS, server.openai_base_url, use_cache=False))
        with judging_session(prepared, tmp_path, provenance=None) as session:
            tally = session.judge(on_verdict=seen.append)
    assert (tally.verdicts, dict(tally.scores), tally.not_judged) == (18, {"pass": 18}, 0)
    assert session.recorded() is None
    assert session.verdicts_file == tmp_path / "verdicts.jsonl"
    lines = session.verdicts_file.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["run_id"] for line in lines] == [v.run_id for v in seen]
    assert sorted(v.run_id for v in seen) == sorted(prepared.run_ids)
    assert len(prepared.run_ids) == 18


def test_the_runs_file_is_checked_before_the_key_is_read(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(DataError, match=r"missing\.jsonl"):
        prepare_judging(request(missing, "http://127.0.0.1:9/v1", api_key_env=UNSET))
    with pytest.raises(ConfigError) as raised:
        prepare_judging(request(SHOP_RUNS, "http://127.0.0.1:9/v1", api_key_env=UNSET))
    assert str(raised.value) == f"--api-key-env {UNSET}: that environment variable is not set"
