"""Grading at parse speed gives exactly the grades of the pydantic path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.formats.run import Run, load_runs
from judgekit.formats.run_lean import lean_run
from judgekit.formats.task import load_tasks
from judgekit.formats.task_files import load_task_files
from judgekit.graders.grade import grade_run
from judgekit.graders.grade_file import grade_file
from judgekit.graders.results_files import write_results
from judgekit.graders.state import changes

ROOT = Path(__file__).resolve().parents[2]

STATE_PAIRS: list[tuple[Any, Any]] = [
    ({"a": {"x": True}}, {"a": {"x": 1}}),  # == in Python, a change for State
    ({"a": {"x": [False, 2]}}, {"a": {"x": [0, 2]}}),
    ({"a": [1, 2]}, {"a": [1.0, 2]}),  # the same number: no change
    ({"a": {"p": 1, "q": 2}}, {"a": {"q": 2, "p": 1}}),  # key order: no change
    ({"a": {"z": -0.0}}, {"a": {"z": 0}}),
    ({"a": {"x": 1}, "b": []}, {"a": {"x": 1}, "b": [{"c": None}]}),
    ({"a": "1"}, {"a": 1}),
    ({"a": {"x": True}}, {"a": {"x": True}}),
    ({"a": [[1, True], {"k": "v"}]}, {"a": [[1, 1], {"k": "v"}]}),
]


@pytest.mark.parametrize(("before", "after"), STATE_PAIRS)
def test_changes_by_json_encoding_agree_with_changes_by_repr(before: Any, after: Any) -> None:
    assert changes(before, after, json_values=True) == changes(before, after)


def test_changes_by_json_encoding_still_find_a_bool_that_meets_a_number() -> None:
    found = changes({"a": {"x": True}, "b": 2}, {"a": {"x": 1}, "b": 2}, json_values=True)
    assert found == [(("a", "x"), True, 1)]


def _model_results(runs: Path, suite: Path) -> str:
    tasks = load_tasks(suite)
    lines = []
    for run in load_runs(runs):
        task = tasks.get(run.task_id)
        assert task is not None
        lines.append(grade_run(run, task).model_dump_json() + "\n")
    return "".join(lines)


@pytest.mark.parametrize("name", ["shop", "travel"])
def test_grade_file_writes_what_the_model_path_writes(tmp_path: Path, name: str) -> None:
    runs, suite = ROOT / "examples" / "runs" / f"{name}.jsonl", ROOT / "tasks" / f"{name}.yaml"
    grade_file(runs, load_task_files(suite), out_dir=tmp_path)
    assert (tmp_path / "results.jsonl").read_text(encoding="utf-8") == _model_results(runs, suite)


@pytest.mark.parametrize("name", ["shop", "travel"])
def test_each_example_run_is_read_by_the_lean_reader_and_graded_the_same(name: str) -> None:
    tasks = load_tasks(ROOT / "tasks" / f"{name}.yaml")
    text = (ROOT / "examples" / "runs" / f"{name}.jsonl").read_text(encoding="utf-8")
    for line in filter(None, text.splitlines()):
        lean, model = lean_run(line), Run.model_validate_json(line)
        assert lean is not None, line
        task = tasks.get(model.task_id)
        assert task is not None
        assert grade_run(lean, task) == grade_run(model, task)


def test_runs_with_states_that_hold_bools_grade_the_same(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "suite: s\ntasks:\n  - id: t\n    expect_state: {flags.on: true}\n"
        "    only_changes: [flags.on]\n",
        encoding="utf-8",
    )
    initial = {"flags": {"on": False, "beta": True, "n": 1}}
    finals = [
        {"flags": {"on": True, "beta": True, "n": 1}},
        {"flags": {"on": True, "beta": 1, "n": 1}},
        {"flags": {"on": 1, "beta": True, "n": True}},
        {"flags": {"on": True, "beta": True, "n": 1.0}},
    ]
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        "".join(
            json.dumps(
                {
                    "run_id": f"r{i}",
                    "task_id": "t",
                    "tool_calls": [],
                    "initial_state": initial,
                    "final_state": final,
                }
            )
            + "\n"
            for i, final in enumerate(finals)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    grade_file(runs, suite, out_dir=out)
    written = (out / "results.jsonl").read_text(encoding="utf-8")
    assert written == _model_results(runs, suite)
    reasons = [json.loads(line)["state"]["reason"] for line in written.splitlines()]
    assert reasons == [
        "1 state check passed; no change outside [flags.on]",
        "flags.beta changed from true to 1: outside only_changes [flags.on]",
        "flags.on: expected true, got 1 (a number, not a bool); flags.n changed from 1 to true: "
        "outside only_changes [flags.on]",
        "1 state check passed; no change outside [flags.on]",
    ]


def test_write_results_is_unchanged_by_the_fast_path(tmp_path: Path) -> None:
    suite = ROOT / "tasks" / "shop.yaml"
    tasks = load_tasks(suite)
    grades = [
        grade_run(run, task)
        for run in load_runs(ROOT / "examples" / "runs" / "shop.jsonl")
        if (task := tasks.get(run.task_id)) is not None
    ]
    for _ in write_results(grades, tmp_path):
        pass
    assert (tmp_path / "results.jsonl").read_text(encoding="utf-8") == "".join(
        grade.model_dump_json() + "\n" for grade in grades
    )
