"""The lean run reader: the same runs as ``Run`` or none at all, and the same errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import DataError
from judgekit.formats.run import Run, iter_unique_runs
from judgekit.formats.run_lean import iter_unique_lean_runs, lean_run

FULL_RUN: dict[str, Any] = {
    "run_id": "shop/refund/1",
    "task_id": "refund",
    "trial": 1,
    "input": "Refund A100.",
    "tool_calls": [
        {"id": "c1", "name": "lookup", "args": {"order_id": "A100"}, "result": {"ok": True}},
        {"name": "refund", "args": {"amount": 40, "big": 10**30, "x": [1.5, None, False]}},
        {"name": "refund", "error": "timeout", "raw_arguments": "{", "arguments_error": "bad"},
    ],
    "final_answer": "Refunded $40.",
    "messages_to_user": ["Working on it.", "Refunded $40."],
    "turns": 3,
    "usage": {"input_tokens": 10, "output_tokens": 5, "cached_tokens": 2},
    "cost_usd": 5,
    "duration_s": 0.25,
    "stop_reason": "completed",
    "initial_state": {"orders": {"A100": {"refunded": 0}}},
    "final_state": {"orders": {"A100": {"refunded": 40.0, "flag": True}}, "é": "ü"},
    "violations": ["edited a protected file"],
    "metadata": {"agent": "v3"},
}

GRADED_FIELDS = [
    "run_id",
    "task_id",
    "trial",
    "input",
    "final_answer",
    "reference",
    "messages_to_user",
    "turns",
    "cost_usd",
    "duration_s",
    "stop_reason",
    "initial_state",
    "final_state",
    "violations",
    "completed",
]
CALL_FIELDS = ["name", "args", "error", "id", "raw_arguments", "arguments_error", "executed_by"]


def fields(run: Any) -> dict[str, Any]:
    """Every field, with each value's type (so 5 and 5.0, or 1 and True, tell apart)."""

    def typed(value: Any) -> Any:
        return json.dumps(value, sort_keys=False) + type(value).__name__

    out = {name: typed(getattr(run, name)) for name in GRADED_FIELDS}
    out["tool_calls"] = [
        {name: typed(getattr(call, name)) for name in CALL_FIELDS} for call in run.tool_calls
    ]
    return out


def test_a_full_run_reads_the_same_as_with_the_pydantic_model() -> None:
    line = json.dumps(FULL_RUN)
    lean = lean_run(line)
    assert lean is not None
    assert fields(lean) == fields(Run.model_validate_json(line))
    assert lean.cost_usd == 5.0 and type(lean.cost_usd) is float  # as pydantic's float


def test_a_call_run_by_the_provider_reads_the_same_as_with_the_pydantic_model() -> None:
    search = {"name": "web_search", "args": {"query": "A100"}, "executed_by": "provider"}
    line = json.dumps({**FULL_RUN, "tool_calls": [*FULL_RUN["tool_calls"], search]})
    lean = lean_run(line)
    assert lean is not None
    assert fields(lean) == fields(Run.model_validate_json(line))
    assert [call.executed_by for call in lean.tool_calls] == ["agent"] * 3 + ["provider"]


def test_metadata_and_tool_results_are_kept_as_their_json() -> None:
    lean = lean_run(json.dumps(FULL_RUN))
    assert lean is not None
    assert bytes(lean.metadata_json) == b'{"agent": "v3"}'
    assert [bytes(call.result_json) for call in lean.tool_calls] == [
        b'{"ok": true}',
        b"null",
        b"null",
    ]


def test_defaults_read_the_same_as_with_the_pydantic_model() -> None:
    line = '{"run_id": "r", "task_id": "t", "tool_calls": [{"name": "f"}]}'
    lean = lean_run(line)
    assert lean is not None
    assert fields(lean) == fields(Run.model_validate_json(line))


def test_a_plain_answer_reads_the_same_as_with_the_pydantic_model() -> None:
    line = '{"run_id": "q1", "input": "2+2?", "final_answer": "4", "reference": "4"}'
    lean = lean_run(line)
    assert lean is not None
    assert fields(lean) == fields(Run.model_validate_json(line))
    assert (lean.task_id, lean.tool_calls, lean.reference) == (None, [], "4")


@pytest.mark.parametrize(
    "change",
    [
        {"trial": "2"},  # pydantic's lax mode coerces some of these: the model decides
        {"trial": 2.0},
        {"trial": True},
        {"turns": -1},
        {"turns": 2.0},
        {"cost_usd": -0.5},
        {"cost_usd": "0.5"},
        {"duration_s": 1e400},
        {"usage": {"input_tokens": -3}},
        {"stop_reason": "crashed"},
        {"reference": 4},
        {"task_id": None, "tool_calls": None},
        {"surprise": 1},
        {"tool_calls": [{"name": "f", "argz": {}}]},
        {"tool_calls": [{"name": 7}]},
        {"final_state": None, "metadata": None},
        {"metadata": [1]},
        {"metadata": "x"},
        {"initial_state": [1]},
        {"initial_state": {"x": 1e400}},  # pydantic reads inf: the model decides
        {"tool_calls": [{"name": "f", "result": {"x": "\ud800"}}]},
        {"tool_calls": [{"name": "f", "args": None}]},
        {"tool_calls": [{"name": "f", "args": [1]}]},
        {"tool_calls": [{"name": "f", "args": {"x": 1e400}}]},
        {"final_state": [1]},
        {"final_state": {"x": 1e400}},
    ],
)
def test_a_line_the_lean_reader_is_not_sure_of_is_left_to_the_model(change: dict[str, Any]) -> None:
    line = json.dumps({**FULL_RUN, **change})
    assert lean_run(line) is None


@pytest.mark.parametrize(
    "line",
    ["{", '{"run_id": "r"', "[1, 2]", "NaN", '{"run_id": "\\ud800"}', "{'run_id': 'r'}"],
)
def test_malformed_json_is_left_to_the_model(line: str) -> None:
    assert lean_run(line) is None


def _errors(reader: Any, path: Path) -> str:
    with pytest.raises(DataError) as caught:
        for _ in reader(path):
            pass
    return str(caught.value)


@pytest.mark.parametrize(
    ("second_line", "expected"),
    [
        ('{"run_id": "b", "task_id": "t", "tool_calls": [], "trial": "x"}', ":2: trial: "),
        ('{"run_id": "b", "task_id": "t", "tool_calls": [], "turns": -2}', ":2: turns: "),
        ('{"run_id": "b", "task_id": "t", "tool_calls": [], "cost": 1}', ":2: cost: "),
        ('{"run_id": "b", "task_id": "t"', ":2: malformed JSON"),
        (
            '{"run_id": "b", "task_id": "t", "tool_calls": [{"name": "f", "executed_by": "x"}]}',
            ":2: tool_calls.0.executed_by: ",
        ),
        ('{"run_id": "a", "task_id": "t", "tool_calls": []}', ":2: run_id: duplicate run id"),
    ],
)
def test_errors_are_the_same_as_the_model_path(
    tmp_path: Path, second_line: str, expected: str
) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(
        '{"run_id": "a", "task_id": "t", "tool_calls": []}\n' + second_line + "\n",
        encoding="utf-8",
    )
    message = _errors(iter_unique_lean_runs, path)
    assert message == _errors(iter_unique_runs, path)
    assert f"{path}{expected}" in message


def test_an_empty_file_is_refused_as_by_the_model_path(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text("\n  \n", encoding="utf-8")
    assert _errors(iter_unique_lean_runs, path) == f"no runs in {path}"
    assert _errors(iter_unique_runs, path) == f"no runs in {path}"


def test_lines_left_to_the_model_are_read_by_it(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    lines = [
        '{"run_id": "a", "task_id": "t", "tool_calls": [], "trial": "3"}',
        "",
        '{"run_id": "b", "task_id": "t", "tool_calls": [], "trial": 4}',
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = [(line, type(run).__name__, run.trial) for line, run in iter_unique_lean_runs(path)]
    assert got == [(1, "Run", 3), (3, "LeanRun", 4)]


def test_a_repeated_key_counts_last_as_in_the_model() -> None:
    line = (
        '{"run_id": "a", "task_id": "t", "tool_calls": [{"name": "x", "name": "y"}], '
        '"run_id": "b", "initial_state": {"x": 1}, "initial_state": {"y": 2}, '
        '"metadata": [1], "metadata": {}, "turns": 1, "turns": 2}'
    )
    lean, model = lean_run(line), Run.model_validate_json(line)
    assert lean is not None
    assert fields(lean) == fields(model)
    assert (lean.run_id, lean.tool_calls[0].name, lean.initial_state, lean.turns) == (
        "b",
        "y",
        {"y": 2},
        2,
    )
