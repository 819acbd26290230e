"""In-process trials: known truth, isolation under concurrency, caps, crashes, resume."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from examples.shop import DESIGNED_PASS_RATES, REGRESSED_PASS_RATES
from judgekit import ConfigError, Task, ToolError, World, load_tasks
from judgekit.stats.proportions import wilson_interval
from judgekit.trials.runner import TrialLimits, in_process_trials, load_agent, run_trials
from tests.conftest import REPO

SHOP = REPO / "tasks" / "shop.yaml"


def suite(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def results(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def runs(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    ("agent", "rates"),
    [
        ("examples.shop:agent", DESIGNED_PASS_RATES),
        ("examples.shop:regressed_agent", REGRESSED_PASS_RATES),
    ],
)
def test_measured_pass_rates_sit_within_their_intervals_of_the_designed_rates(
    tmp_path: Path, agent: str, rates: dict[str, float]
) -> None:
    tasks = load_tasks(SHOP)
    trial = in_process_trials(tasks, load_agent(agent), TrialLimits(timeout_s=None))
    summary = run_trials(tasks, trial, trials=5000, out_dir=tmp_path)
    for task_id, designed in rates.items():
        task = summary.tasks[task_id]
        assert task.runs == 5000
        low, high = wilson_interval(task.passed, task.runs)
        assert low <= designed <= high, (task_id, task.passed / task.runs, designed)


def test_the_same_trials_give_the_same_outcomes_at_any_concurrency(tmp_path: Path) -> None:
    tasks = load_tasks(SHOP)
    trial = in_process_trials(tasks, load_agent("examples.shop:agent"))
    run_trials(tasks, trial, trials=30, out_dir=tmp_path / "one", concurrency=1)
    run_trials(tasks, trial, trials=30, out_dir=tmp_path / "eight", concurrency=8)

    def outcome(out: Path) -> dict[str, tuple[bool, str]]:
        return {r["run_id"]: (r["passed"], json.dumps(r["truth"])) for r in results(out)}

    assert outcome(tmp_path / "one") == outcome(tmp_path / "eight")
    assert len(outcome(tmp_path / "one")) == 120


def marking_agent(task: Task, world: World) -> str:
    # Each trial stamps its own world; a world shared with another trial would show a
    # foreign stamp or lose its own while the other trial sleeps.
    mine = f"{task.id}-{world.rng.random()}"
    world.call("stamp", mark=mine)
    time.sleep(0.002)
    world.call("stamp", mark=mine)
    return "stamped"


def stamp(state: dict[str, Any], mark: str) -> dict[str, Any]:
    state["marks"].append(mark)
    if len(set(state["marks"])) != 1:
        raise ToolError(f"foreign marks in my world: {state['marks']}")
    return {"ok": True}


TOOLS = {"stamp": stamp}


def test_concurrent_trials_never_share_a_world(tmp_path: Path) -> None:
    path = suite(
        tmp_path,
        "suite: marks\ntools: tests.trials.test_in_process:TOOLS\ninitial_state: {marks: []}\n"
        "tasks:\n  - id: a\n    expect_state: {marks: {$type: list}}\n    max_tool_error_rate: 0\n    duplicates: allow\n"
        "  - id: b\n    max_tool_error_rate: 0\n    duplicates: allow\n",
    )
    tasks = load_tasks(path)
    summary = run_trials(
        tasks,
        in_process_trials(tasks, marking_agent),
        trials=40,
        out_dir=tmp_path / "out",
        concurrency=8,
    )
    assert (summary.runs, summary.passed) == (80, 80)
    assert all(len(set(r["final_state"]["marks"])) == 1 for r in runs(tmp_path / "out"))
    assert all(r["initial_state"] == {"marks": []} for r in runs(tmp_path / "out"))


def looping_agent(task: Task, world: World) -> str:
    while True:
        world.call("stamp", mark="same")


def sleeping_agent(task: Task, world: World) -> str:
    time.sleep(5)
    return "too late"


def crashing_agent(task: Task, world: World) -> str:
    world.call("stamp", mark="x")
    raise RuntimeError("model returned garbage")


def misusing_agent(task: Task, world: World) -> str:
    try:
        world.call("stamp", wrong=1)
    except ToolError as exc:
        return f"refused: {exc}"
    return "not refused"


@pytest.mark.parametrize(
    ("agent", "stop_reason", "detail"),
    [
        (looping_agent, "max_tool_calls", "tool-call cap of 7 reached"),
        (sleeping_agent, "timeout", "no answer within 0.2 s"),
        (crashing_agent, "error", "RuntimeError: model returned garbage"),
    ],
)
def test_caps_and_crashes_fail_the_trial_not_the_evaluation(
    tmp_path: Path, agent: Any, stop_reason: str, detail: str
) -> None:
    path = suite(
        tmp_path,
        "suite: caps\ntools: tests.trials.test_in_process:TOOLS\ninitial_state: {marks: []}\n"
        "tasks:\n  - id: a\n  - id: b\n",
    )
    tasks = load_tasks(path)
    started = time.monotonic()
    trial = in_process_trials(tasks, agent, TrialLimits(max_tool_calls=7, timeout_s=0.2))
    summary = run_trials(tasks, trial, trials=2, out_dir=tmp_path / "out", concurrency=2)
    assert time.monotonic() - started < 3
    assert (summary.runs, summary.passed) == (4, 0)
    for run in runs(tmp_path / "out"):
        assert run["stop_reason"] == stop_reason
        assert run["metadata"]["stop_detail"] == detail
        assert run["final_answer"] is None
    if agent is looping_agent:
        assert all(len(r["tool_calls"]) == 7 for r in runs(tmp_path / "out"))


def test_bad_arguments_and_unknown_tools_are_refused_calls(tmp_path: Path) -> None:
    path = suite(
        tmp_path, "suite: s\ntools: tests.trials.test_in_process:TOOLS\ntasks:\n  - id: a\n"
    )
    tasks = load_tasks(path)
    run_trials(tasks, in_process_trials(tasks, misusing_agent), trials=1, out_dir=tmp_path / "out")
    (run,) = runs(tmp_path / "out")
    assert run["final_answer"] == "refused: bad arguments: missing a required argument: 'mark'"
    assert run["tool_calls"] == [
        {
            "name": "stamp",
            "args": {"wrong": 1},
            "result": None,
            "error": "bad arguments: missing a required argument: 'mark'",
            "id": None,
            "raw_arguments": None,
            "arguments_error": None,
            "executed_by": "agent",
        }
    ]


def test_resume_completes_an_interrupted_run(tmp_path: Path) -> None:
    tasks = load_tasks(SHOP)
    trial = in_process_trials(tasks, load_agent("examples.shop:agent"))
    out = tmp_path / "out"
    run_trials(tasks, trial, trials=3, out_dir=out)
    # the process died while writing the fourth trial's line
    with (out / "runs.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"run_id": "shop/refund_full/4", "task_id": "ref')
    with pytest.raises(ConfigError, match="exists: pass --resume to complete it"):
        run_trials(tasks, trial, trials=5, out_dir=out)
    summary = run_trials(tasks, trial, trials=5, out_dir=out, resume=True)
    assert summary.runs == 20
    ids = [r["run_id"] for r in runs(out)]
    assert len(ids) == len(set(ids)) == 20
    assert [r["run_id"] for r in results(out)] == ids
    assert len((out / "results.csv").read_text().splitlines()) == 21
    fresh = tmp_path / "fresh"
    run_trials(tasks, trial, trials=5, out_dir=fresh)
    assert sorted(map(json.dumps, results(out))) == sorted(map(json.dumps, results(fresh)))
