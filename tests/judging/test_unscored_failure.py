"""A judge that produced no usable verdicts fails: every verdict unscored, or more than
`--max-unscored` of them, ends `judgekit judge` with exit 1 and the reasons counted; the
verdicts are written all the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.testing import FakeLLMServer
from judgekit.testing.fake_llm_server import FakeRequest
from tests.judging.conftest import RUBRIC, judge_args, refund_runs, verdict_json

VERSION = rubric_version(load_rubric(RUBRIC))
GIBBERISH = "Gibberish the judge cannot grade."


def runs_file(tmp_path: Path, answers: list[str]) -> Path:
    return refund_runs(tmp_path / "runs.jsonl", answers, first=1)


def prose_for_gibberish(request: FakeRequest) -> str:
    """Answers in prose (not a verdict, even after the repair) about the gibberish answer."""
    return "It is hard to say." if GIBBERISH in request.text else verdict_json("pass")


def judge(server: FakeLLMServer, runs: Path, out: Path, *extra: str, text: bool = False) -> Result:
    args = judge_args(runs, server.openai_base_url, out, *extra)
    if text:
        args.remove("--json")
    return CliRunner().invoke(main, args)


def test_a_judge_whose_every_verdict_is_unscored_fails_with_the_reasons_counted(
    tmp_path: Path,
) -> None:
    runs = runs_file(tmp_path, [GIBBERISH, GIBBERISH + " Twice."])
    out = tmp_path / "out"
    with FakeLLMServer(reply=prose_for_gibberish) as server:
        result = judge(server, runs, out, text=True)
        # However much of a share is allowed, no usable verdict at all is a failure.
        anyway = judge(server, runs, tmp_path / "anyway", "--max-unscored", "1")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        f"goal_completion (version {VERSION}, openai/gpt-4o-mini): 2 verdicts, 0 scored "
        "(none), 2 unscored (100.0%; 2 not valid JSON)"
    )
    assert result.stderr == (
        "judging failed: all 2 verdicts are unscored, none usable (2 not valid JSON); check "
        "the model and the rubric's answer format; the verdicts are in "
        f"{out / 'verdicts.jsonl'}\n"
    )
    written = [json.loads(line) for line in (out / "verdicts.jsonl").read_text().splitlines()]
    # Verdicts are appended as their answers arrive, in any order.
    assert sorted((v["run_id"], v["status"]) for v in written) == [
        ("r1", "unscored"),
        ("r2", "unscored"),
    ]
    assert anyway.exit_code == 1
    report: dict[str, Any] = json.loads(anyway.stdout)
    assert (report["unscored"], report["unscored_reasons"]) == (2, {"not valid JSON": 2})
    assert (report["max_unscored"], report["unscored_failed"]) == (1.0, True)


@pytest.mark.parametrize(
    ("max_unscored", "exit_code"),
    [(None, 0), ("0.25", 0), ("0.2", 1), ("0", 1), ("1", 0)],
)
def test_more_unscored_verdicts_than_max_unscored_fail(
    tmp_path: Path, max_unscored: str | None, exit_code: int
) -> None:
    runs = runs_file(tmp_path, ["Refund of $40 issued.", "Refunded.", "Done.", GIBBERISH])
    extra = () if max_unscored is None else ("--max-unscored", max_unscored)
    with FakeLLMServer(reply=prose_for_gibberish) as server:
        result = judge(server, runs, tmp_path / "out", *extra)
        # The rerun keeps the four verdicts and counts the kept unscored one alike.
        rerun = judge(server, runs, tmp_path / "out", *extra)
    for outcome in (result, rerun):
        assert outcome.exit_code == exit_code, outcome.output
        report = json.loads(outcome.stdout)
        assert (report["verdicts"], report["unscored"]) == (4, 1)
        assert report["unscored_reasons"] == {"not valid JSON": 1}
        assert report["unscored_failed"] is bool(exit_code)
    assert json.loads(rerun.stdout)["kept"] == 4
    if exit_code:
        assert result.stderr == (
            "judging failed: 1 of 4 verdicts unscored (25.0%), above --max-unscored "
            f"{max_unscored} (1 not valid JSON); check the model and the rubric's answer "
            f"format; the verdicts are in {tmp_path / 'out' / 'verdicts.jsonl'}\n"
        )
    else:
        assert result.stderr == ""


@pytest.mark.parametrize("value", ["nan", "NaN", "-0.1", "1.5", "inf", "half", ""])
def test_max_unscored_must_be_a_share(tmp_path: Path, value: str) -> None:
    runs = runs_file(tmp_path, ["Refund of $40 issued."])
    with FakeLLMServer(reply=prose_for_gibberish) as server:
        result = judge(server, runs, tmp_path / "out", "--max-unscored", value)
        assert server.calls == 0
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: Invalid value for '--max-unscored': expected a share from 0 to 1 "
        f"(0.5: at most half the verdicts), got {value!r} (see judgekit judge --help)\n"
    )
    assert not (tmp_path / "out").exists()
