"""The suite's pass@k and pass^k as the mean over tasks of each task's estimator."""

from __future__ import annotations

import json
from math import comb

import pytest

from judgekit.formats.grade import Grade
from judgekit.graders.summary import GradeSummary, TaskSummary, mean_over_tasks
from judgekit.graders.table import suite_mean_line
from tests.conftest import shared_data_path


def summary_of(outcomes: dict[str, list[bool]]) -> GradeSummary:
    """A summary of runs whose pass or fail is given per task, trial by trial."""
    summary = GradeSummary()
    for task_id, passes in outcomes.items():
        for trial, passed in enumerate(passes, start=1):
            run_id = f"s/{task_id}/{trial}"
            summary.add(Grade(run_id=run_id, task_id=task_id, trial=trial, passed=passed))
    return summary


# Three tasks of unequal size: (n, c) = (4, 3), (2, 1), (3, 0).
UNEQUAL = {"b": [True, True, False, True], "a": [True, False], "c": [False, False, False]}


def test_the_mean_of_each_task_s_estimator_at_k_2() -> None:
    # By hand: pass@2 = 1 − C(n−c, 2)/C(n, 2) = 1, 1, 0 → 2/3;
    # pass^2 = C(c, 2)/C(n, 2) = 3/6, 0/1, 0/3 → (1/2)/3 = 1/6.
    mean = mean_over_tasks(summary_of(UNEQUAL).tasks.values(), 2)
    assert mean == {
        "k": 2,
        "tasks": 3,
        "left_out": [],
        "pass_at_k": pytest.approx(2 / 3, abs=1e-15),
        "pass_hat_k": pytest.approx(1 / 6, abs=1e-15),
    }
    # Not the pooled rate: 4 of 9 runs passed, while the mean of the task rates is 5/12.
    assert mean_over_tasks(summary_of(UNEQUAL).tasks.values(), 1)["pass_at_k"] == pytest.approx(
        (3 / 4 + 1 / 2 + 0) / 3, abs=1e-15
    )


def test_tasks_with_fewer_than_k_runs_are_left_out_and_named() -> None:
    # At k = 3 task a (2 runs) has no estimator: the mean is over b and c only.
    mean = mean_over_tasks(summary_of(UNEQUAL).tasks.values(), 3)
    assert mean["tasks"] == 2 and mean["left_out"] == ["a"]
    assert mean["pass_at_k"] == pytest.approx((1 + 0) / 2, abs=1e-15)
    assert mean["pass_hat_k"] == pytest.approx((comb(3, 3) / comb(4, 3) + 0) / 2, abs=1e-15)
    assert suite_mean_line(mean) == (
        "suite, mean over 2 of 3 tasks: pass@3 0.50, pass^3 0.12; left out, fewer than 3 runs: a"
    )


def test_undefined_when_no_task_has_k_runs() -> None:
    mean = mean_over_tasks(summary_of(UNEQUAL).tasks.values(), 5)
    assert mean == {
        "k": 5,
        "tasks": 0,
        "left_out": ["a", "b", "c"],
        "pass_at_k": None,
        "pass_hat_k": None,
    }
    assert suite_mean_line(mean) == (
        "suite, mean over tasks: pass@5 and pass^5 undefined (every task has fewer than 5 runs)"
    )
    empty = mean_over_tasks([], 1)
    assert (
        suite_mean_line(empty) == "suite, mean over tasks: pass@1 and pass^1 undefined (no tasks)"
    )


def test_the_line_names_one_task_and_caps_the_left_out_list() -> None:
    one = mean_over_tasks([TaskSummary("t", runs=2, passed=2)], 2)
    assert suite_mean_line(one) == "suite, mean over 1 task: pass@2 1.00, pass^2 1.00"
    many = [TaskSummary(f"t{i:02}", runs=1, passed=1) for i in range(12)]
    line = suite_mean_line(mean_over_tasks([*many, TaskSummary("z", runs=2, passed=0)], 2))
    assert line == (
        "suite, mean over 1 of 13 tasks: pass@2 0.00, pass^2 0.00; left out, fewer than 2 runs: "
        "t00, t01, t02, t03, t04, t05, t06, t07, t08, t09 and 2 more"
    )


def test_left_out_task_ids_are_shown_as_text_not_markup() -> None:
    mean = mean_over_tasks([TaskSummary("[red]x", runs=1, passed=0), TaskSummary("y", 2, 1)], 2)
    assert mean["left_out"] == ["[red]x"]
    assert suite_mean_line(mean).endswith(r"left out, fewer than 2 runs: \[red]x")


def test_the_json_report_carries_the_mean_beside_the_pooled_pass_at_1() -> None:
    report = summary_of(UNEQUAL).as_dict(k=3)
    assert (report["passed"], report["runs"], report["k"]) == (4, 9, 3)
    assert report["mean_over_tasks"]["left_out"] == ["a"]
    assert report["mean_over_tasks"]["pass_at_k"] == pytest.approx(0.5, abs=1e-15)


def test_reproduces_taubench_published_pass_hat_1_to_4() -> None:
    # τ-bench's README: gpt-4o airline, 50 tasks × 4 trials, pass^1..4 = 0.420 / 0.273 /
    # 0.220 / 0.200, each the mean over tasks. Here each run passes exactly when τ-bench
    # rewarded it (the 2 runs it never evaluated carry reward 0: failures, as in its figures).
    path = shared_data_path("taubench", "gpt-4o-airline.compact.jsonl")
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    summary = GradeSummary()
    for record in records:
        summary.add(
            Grade(
                run_id=f"{record['task_id']}/{record['trial']}",
                task_id=str(record["task_id"]),
                trial=record["trial"],
                passed=record["reward"] == 1.0,
            )
        )
    assert (len(summary.tasks), summary.runs, summary.default_k()) == (50, 200, 4)
    figures = [summary.as_dict(k=k)["mean_over_tasks"] for k in (1, 2, 3, 4)]
    assert [m["tasks"] for m in figures] == [50] * 4
    assert [round(m["pass_hat_k"], 3) for m in figures] == [0.420, 0.273, 0.220, 0.200]
    # Exactly: 84 of 200 runs passed; at k = 4, 10 tasks passed all 4 trials and 36 at least one.
    assert figures[0]["pass_hat_k"] == pytest.approx(84 / 200, abs=1e-15)
    assert figures[3]["pass_hat_k"] == pytest.approx(10 / 50, abs=1e-15)
    assert figures[3]["pass_at_k"] == pytest.approx(36 / 50, abs=1e-15)
    assert suite_mean_line(figures[3]) == "suite, mean over 50 tasks: pass@4 0.72, pass^4 0.20"
