"""The grading memo gives exactly what grading again gives, and only for the same content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.formats.grade import Grade
from judgekit.formats.lean_cache import LeanCache
from judgekit.formats.run import Run
from judgekit.formats.run_lean import LeanRun, lean_run
from judgekit.formats.task import Task, TaskSet, load_tasks
from judgekit.graders import memo as memo_module
from judgekit.graders.grade import grade_row, grade_run
from judgekit.graders.grade_file import grade_file
from judgekit.graders.memo import GradingMemo

ROOT = Path(__file__).resolve().parents[2]

TASK: dict[str, Any] = {
    "id": "refund",
    "expect_tools": [{"name": "issue_refund", "args": {"order_id": "A100"}}],
    "forbid_tools": ["delete_order"],
    "max_calls": {"issue_refund": 1},
    "max_turns": 3,
    "expect_state": {"orders.A100.refunded": 40},
    "only_changes": ["orders.A100.refunded"],
    "initial_state": {"orders": {"A100": {"refunded": 0}}},
}
RUN: dict[str, Any] = {
    "run_id": "r0",
    "task_id": "refund",
    "tool_calls": [{"id": "c1", "name": "issue_refund", "args": {"order_id": "A100"}}],
    "turns": 2,
    "initial_state": {"orders": {"A100": {"refunded": 0}}},
    "final_state": {"orders": {"A100": {"refunded": 40}}},
}

# Each differs from RUN in one thing a grader reads, or in things none reads (ids, results).
VARIANTS: list[dict[str, Any]] = [
    {},
    {
        "run_id": "r1",
        "tool_calls": [
            {"id": "c9", "name": "issue_refund", "args": {"order_id": "A100"}, "result": {"ok": 1}}
        ],
    },
    {"tool_calls": [{"name": "issue_refund", "args": {"order_id": "A101"}}]},
    {"tool_calls": [{"name": "issue_refund", "args": {"order_id": "A100"}, "error": "refused"}]},
    {"tool_calls": [{"name": "delete_order", "args": {}, "error": "not allowed"}]},
    {"tool_calls": [{"name": "delete_order", "args": {}, "error": "not now"}]},
    {"tool_calls": [{"name": "issue_refund", "raw_arguments": "{", "arguments_error": "bad"}]},
    {"tool_calls": [{"name": "issue_refund", "raw_arguments": "{{", "arguments_error": "bad"}]},
    {"turns": 4},
    {"turns": 5},
    {"turns": None},
    {"final_state": {"orders": {"A100": {"refunded": 39}}}},
    {"final_state": {"orders": {"A100": {"refunded": 40}, "A101": {}}}},
    {"initial_state": None},
    {"initial_state": {"orders": {"A100": {"refunded": 0}, "A101": {}}}},
    {"final_state": None},
]


def _line(change: dict[str, Any]) -> str:
    return json.dumps({**RUN, **change})


def _task(**changes: Any) -> Task:
    return Task.model_validate({**TASK, **changes})


def test_every_variant_graded_twice_through_the_memo_is_graded_as_without_it() -> None:
    task, memo, cache = _task(), GradingMemo(), LeanCache()
    lines = [_line(change) for change in VARIANTS]
    for line in [*lines, *reversed(lines), *lines]:
        lean = lean_run(line, cache=cache)
        assert lean is not None
        alone = grade_row(Run.model_validate_json(line), task)
        assert grade_row(lean, task, memo) == alone, line
    assert len(memo._truth) == 7  # distinct call contents: each graded once
    assert len(memo._path) == 10  # and with each distinct turns count (max_turns is set)
    assert len(memo._state) == 6  # distinct pairs of state texts


def test_turns_are_no_part_of_the_path_key_when_the_task_caps_none() -> None:
    task, memo = _task(max_turns=None), GradingMemo()
    for turns in (1, 2, 50):
        lean = lean_run(_line({"turns": turns}))
        assert lean is not None
        grade_row(lean, task, memo)
    assert len(memo._path) == 1


def test_a_remembered_result_is_the_object_first_made() -> None:
    task, memo, cache = _task(), GradingMemo(), LeanCache()
    first, second = (lean_run(_line({"run_id": name}), cache=cache) for name in ("a", "b"))
    assert isinstance(first, LeanRun) and isinstance(second, LeanRun)
    one, two = grade_row(first, task, memo), grade_row(second, task, memo)
    assert two.truth is one.truth and two.path is one.path and two.state is one.state
    assert (two.run_id, one.run_id) == ("b", "a")


def test_tasks_of_one_id_from_two_suites_are_kept_apart() -> None:
    memo = GradingMemo()
    lean = lean_run(_line({}))
    assert lean is not None
    passing = grade_row(lean, _task(), memo)
    failing = grade_row(lean, _task(expect_tools=[{"name": "refund"}]), memo)
    assert passing.truth is not None and passing.truth.passed
    assert failing.truth is not None and not failing.truth.passed


def test_runs_read_by_the_model_are_graded_every_time() -> None:
    task, memo = _task(), GradingMemo()
    run = Run.model_validate_json(_line({}))
    one, two = grade_row(run, task, memo), grade_row(run, task, memo)
    assert one == two and one.truth is not two.truth
    assert not len(memo._truth)


def test_a_full_table_starts_again() -> None:
    task, memo = _task(), GradingMemo(limit=2)
    for order in ("A1", "A2", "A3"):
        lean = lean_run(
            _line({"tool_calls": [{"name": "issue_refund", "args": {"order_id": order}}]})
        )
        assert lean is not None
        grade_row(lean, task, memo)
    assert len(memo._truth) == 1


def test_the_examples_repeated_grade_as_each_run_alone(tmp_path: Path) -> None:
    for name in ("shop", "travel"):
        suite = load_tasks(ROOT / "tasks" / f"{name}.yaml")
        text = (ROOT / "examples" / "runs" / f"{name}.jsonl").read_text(encoding="utf-8")
        lines = [line for line in text.splitlines() if line]
        repeated = tmp_path / f"{name}.jsonl"
        copies = [
            json.dumps({**json.loads(line), "run_id": f"{copy}/{json.loads(line)['run_id']}"})
            for copy in range(3)
            for line in lines
        ]
        repeated.write_text("\n".join(copies) + "\n", encoding="utf-8")
        alone = [_alone(line, suite).model_dump_json() for line in copies]
        grade_file(repeated, suite, out_dir=tmp_path / name)
        written = (tmp_path / name / "results.jsonl").read_text(encoding="utf-8").splitlines()
        assert written == alone


def _alone(line: str, suite: TaskSet) -> Grade:
    run = Run.model_validate_json(line)
    task = suite.get(run.task_id)
    assert task is not None
    return grade_run(run, task)


def test_a_table_holding_too_much_argument_text_starts_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(memo_module, "_MAX_KEY_BYTES", 100)
    task, memo = _task(), GradingMemo()
    for order in ("A" * 40, "B" * 40, "C" * 40):
        calls = [{"name": "issue_refund", "args": {"order_id": order}}]
        lean = lean_run(_line({"tool_calls": calls}))
        assert lean is not None and lean.calls_text_size == 56
        grade_row(lean, task, memo)
    assert len(memo._truth) == 1 and len(memo._path) == 1
