"""The simulated judge: which run a prompt quotes, the verdict its grade gives, the error
rate's effect, and the results folders it refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import ConfigError, DataError
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import Run
from judgekit.formats.task import Task
from judgekit.judging.fake_judge import UNKNOWN_RUN, FakeJudge, erring_score
from judgekit.judging.prompt_runs import PromptRuns
from judgekit.judging.prompts import render_judge_prompt
from judgekit.testing import FakeRequest
from tests.judging.conftest import RUBRIC

TOOL_RUBRIC = Path(__file__).parents[2] / "judgekit/scaffold/templates/rubrics/tool_use.yaml"
INPUT = "Please move bo@example.com from the team plan to the pro plan."


def run_line(run_id: str, answer: str, plan: str = "pro", **extra: Any) -> dict[str, Any]:
    call = {
        "name": "change_plan",
        "args": {"account_id": "u2", "plan": plan},
        "result": {"ok": True},
    }
    return {
        "run_id": run_id,
        "task_id": "upgrade_plan",
        "input": INPUT,
        "tool_calls": [call],
        "final_answer": answer,
        **extra,
    }


def grade_line(run_id: str, passed: bool) -> dict[str, Any]:
    return {"run_id": run_id, "task_id": "upgrade_plan", "passed": passed}


def results_folder(folder: Path, runs: list[dict[str, Any]], grades: list[dict[str, Any]]) -> Path:
    folder.mkdir()
    (folder / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    (folder / "results.jsonl").write_text("".join(json.dumps(g) + "\n" for g in grades))
    return folder


RUNS = [
    run_line("a/1", "bo@example.com is now on the pro plan. (case 1001)"),
    run_line("a/2", "bo@example.com is now on the team plan. (case 1002)", plan="team"),
    # the same answer as a/1, another call: only a prompt showing the calls tells them apart
    run_line("a/3", "bo@example.com is now on the pro plan. (case 1001)", plan="free"),
]
GRADES = [grade_line("a/1", True), grade_line("a/2", False), grade_line("a/3", False)]


def prompt(run: dict[str, Any], rubric: Path = RUBRIC) -> FakeRequest:
    task = Task(id="upgrade_plan", input=INPUT, reference="bo@example.com is now on the pro plan.")
    messages = render_judge_prompt(load_rubric(rubric), Run.model_validate(run), task)
    return FakeRequest(
        api="openai",
        model="gpt-4o-mini",
        messages=[{"role": m.role, "content": m.content} for m in messages],
        body={},
        headers={},
    )


def test_a_prompt_is_traced_to_the_runs_it_quotes() -> None:
    finder = PromptRuns(Run.model_validate(r) for r in RUNS)
    assert len(finder) == 3
    # goal_completion quotes the input and the answer: a/1 and a/3 read the same there.
    assert finder.runs_of(prompt(RUNS[0]).text) == ("a/1", "a/3")
    assert finder.runs_of(prompt(RUNS[1]).text) == ("a/2",)
    # tool_use quotes the calls: every run is its own.
    assert finder.runs_of(prompt(RUNS[2], TOOL_RUBRIC).text) == ("a/3",)
    assert finder.runs_of("no quoted run here") == ()
    other = dict(RUNS[0], final_answer="Something else entirely.")
    assert finder.runs_of(prompt(other).text) == ()


def test_the_verdict_is_the_grade_and_says_it_is_simulated(tmp_path: Path) -> None:
    judge = FakeJudge.from_results(results_folder(tmp_path / "r", RUNS, GRADES), error_rate=0)
    assert json.loads(judge.reply(prompt(RUNS[1]))) == {
        "reason": "simulated judge, not a model: run a/2 failed its grade",
        "score": "fail",
    }
    assert json.loads(judge.reply(prompt(RUNS[2], TOOL_RUBRIC))) == {
        "reason": "simulated judge, not a model: run a/3 failed its grade",
        "score": "fail",
    }
    # a/1 (passed) and a/3 (failed) read the same to goal_completion: one each, a tie, fail.
    assert json.loads(judge.reply(prompt(RUNS[0])))["score"] == "fail"
    other = dict(RUNS[0], final_answer="Something else entirely.")
    assert judge.reply(prompt(other)) == UNKNOWN_RUN
    assert dict(judge.answered) == {"fail": 3, "unknown": 1}


def test_at_error_rate_one_every_verdict_is_the_opposite(tmp_path: Path) -> None:
    judge = FakeJudge.from_results(results_folder(tmp_path / "r", RUNS, GRADES), error_rate=1)
    assert json.loads(judge.reply(prompt(RUNS[1]))) == {
        "reason": "simulated judge, not a model: run a/2 failed its grade; "
        "answered pass, a set error",
        "score": "pass",
    }
    assert dict(judge.answered) == {"pass": 1, "wrong": 1}


def test_the_error_rate_errs_on_that_share_of_runs_seeded_per_run() -> None:
    ids = [f"t/{i}" for i in range(2000)]

    def wrong(rate: float, seed: int) -> set[str]:
        judge = FakeJudge({i: i.endswith(("0", "2", "4")) for i in ids}, PromptRuns([]), rate, seed)
        return {i for i in ids if (judge.score(i) == "pass") != judge.truth[i]}

    assert len(wrong(0.1, 0)) == 161 and len(wrong(0.1, 1)) == 206  # of 2000: ~200
    assert wrong(0.1, 0) == wrong(0.1, 0)  # the same run, the same verdict
    assert wrong(0.1, 0) != wrong(0.1, 1)
    assert wrong(0.05, 0) <= wrong(0.1, 0)  # one draw per run: a lower rate errs on fewer
    assert not wrong(0.0, 0) and len(wrong(1.0, 0)) == 2000
    assert erring_score("j", "r", False, true_pass_rate=1.0, true_fail_rate=0.0) == "pass"


def test_an_error_rate_off_zero_to_one_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"the error rate must be between 0 and 1, got 1\.5"):
        FakeJudge({}, PromptRuns([]), 1.5)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda f: f / "missing", "missing: no such folder"),
        (lambda f: results_folder(f / "r", RUNS, []) / "runs.jsonl", "not a results folder"),
        (
            lambda f: (results_folder(f / "r", RUNS, GRADES) / "runs.jsonl").unlink() or f / "r",
            "no runs.jsonl in this folder",
        ),
        (lambda f: results_folder(f / "r", RUNS, [*GRADES, {"run_id": "x"}]), "results.jsonl:4"),
        (lambda f: results_folder(f / "r", [*RUNS, {"task_id": "t"}], GRADES), "runs.jsonl:4"),
        (
            lambda f: results_folder(f / "r", RUNS, [grade_line("z/1", True)]),
            "no run of runs.jsonl has a grade in results.jsonl",
        ),
    ],
    ids=["missing", "a runs file", "no runs", "bad grade", "bad run", "no graded run"],
)
def test_a_results_folder_it_cannot_use_is_refused_by_name(
    tmp_path: Path, make: Any, message: str
) -> None:
    with pytest.raises(DataError, match=message):
        FakeJudge.from_results(make(tmp_path))


def many_runs(n: int) -> tuple[dict[str, bool], PromptRuns]:
    runs = [
        Run.model_validate(run_line(f"m/{i}", f"bo@example.com is now on the pro plan. ({i})"))
        for i in range(n)
    ]
    return {run.run_id: i % 2 == 0 for i, run in enumerate(runs)}, PromptRuns(runs)


def test_each_model_errs_at_its_own_rate_independently_of_the_others() -> None:
    truth, finder = many_runs(4000)
    judge = FakeJudge(
        truth, finder, error_rate=0.0, model_error_rates={"openai/a": 0.5, "anthropic/b": 0.5}
    )
    wrong = {
        model: {
            run for run, passed in truth.items() if (judge.score(run, model) == "pass") != passed
        }
        for model in ("openai/a", "anthropic/b")
    }
    # Each errs on about half the runs; both on about a quarter (independent draws), where
    # one shared draw would make them err on the same runs.
    assert (len(wrong["openai/a"]), len(wrong["anthropic/b"])) == (1988, 2025)
    assert len(wrong["openai/a"] & wrong["anthropic/b"]) == 1013
    # A model without its own rate keeps --error-rate (and the draws it always had).
    assert all(
        judge.score(run, "openai/other") == ("pass" if p else "fail") for run, p in truth.items()
    )
    assert judge.score("m/1") == FakeJudge(truth, finder).score("m/1")


def test_a_request_is_matched_to_its_model_s_rate() -> None:
    truth, finder = many_runs(2)
    judge = FakeJudge(truth, finder, model_error_rates={"openai/a": 0.1, "local/b": 0.2})
    assert judge.model_of("openai", "a") == "openai/a"
    assert judge.model_of("anthropic", "a") == "openai/a"  # no exact name: the model's part
    assert judge.model_of("openai", "b") == "local/b"
    assert judge.model_of("openai", "c") is None


@pytest.mark.parametrize(
    ("rates", "message"),
    [
        ({"a": 0.1}, "an error rate is for a provider/model, got 'a'"),
        ({"openai/a": 1.5}, "the error rate of openai/a must be between 0 and 1, got 1.5"),
    ],
)
def test_bad_model_rates_are_refused(rates: dict[str, float], message: str) -> None:
    truth, finder = many_runs(2)
    with pytest.raises(ConfigError) as caught:
        FakeJudge(truth, finder, model_error_rates=rates)
    assert str(caught.value) == message
