"""The run format's messages_to_user: optional, a list of texts, kept as sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.formats.run import Run, load_runs, run_json


def _write(path: Path, *runs: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(run) + "\n" for run in runs), encoding="utf-8")
    return path


def test_a_run_written_before_the_field_existed_still_loads(tmp_path: Path) -> None:
    old = {"run_id": "r1", "task_id": "t", "tool_calls": [], "final_answer": "Done."}
    (run,) = load_runs(_write(tmp_path / "runs.jsonl", old))
    assert (run.final_answer, run.messages_to_user) == ("Done.", [])


def test_messages_keep_their_order_and_white_space(tmp_path: Path) -> None:
    sent = ["  Hello,\n", "Your total is 1,042.50.", "Done."]
    line = {"run_id": "r1", "task_id": "t", "tool_calls": [], "messages_to_user": sent}
    (run,) = load_runs(_write(tmp_path / "runs.jsonl", line))
    assert run.messages_to_user == sent
    assert json.loads(run_json(run))["messages_to_user"] == sent


def test_an_empty_list_is_left_out_of_a_compact_line() -> None:
    run = Run(run_id="r1", task_id="t", tool_calls=[])
    assert run_json(run, exclude_defaults=True) == '{"run_id":"r1","task_id":"t","tool_calls":[]}'
    # in its place, however the run was made, unless a dump names it out
    answer = Run(run_id="q1", final_answer="4", metadata={"a": 1})
    assert run_json(answer, exclude_defaults=True) == (
        '{"run_id":"q1","tool_calls":[],"final_answer":"4","metadata":{"a":1}}'
    )
    assert answer.model_dump(exclude={"tool_calls"}, exclude_defaults=True) == {
        "run_id": "q1",
        "final_answer": "4",
        "metadata": {"a": 1},
    }
    assert answer.model_dump(include={"run_id"}, exclude_defaults=True) == {"run_id": "q1"}


def test_a_message_that_is_not_text_names_the_line_and_the_item(tmp_path: Path) -> None:
    good = {"run_id": "r1", "task_id": "t", "tool_calls": []}
    bad = {"run_id": "r2", "task_id": "t", "tool_calls": [], "messages_to_user": ["ok", 42]}
    path = _write(tmp_path / "runs.jsonl", good, bad)
    with pytest.raises(DataError) as caught:
        list(load_runs(path))
    assert (
        str(caught.value)
        == f"{path}:2: messages_to_user.1: Input should be a valid string (got 42)"
    )
