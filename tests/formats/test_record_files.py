"""Files of records for `judgekit store import`: told apart by their first record, then
read whole, refusing what the store would take silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.formats.record_files import check_records, detect_kind
from tests.conftest import REPO

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"

VERDICT = {
    "run_id": "r1",
    "rubric_id": "goal_completion",
    "rubric_version": "v1",
    "model": "openai/gpt-4o-mini",
    "status": "scored",
    "score": "pass",
    "at": "2026-01-01T00:00:00Z",
}


def lines(path: Path, *records: object) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def test_the_kind_is_told_from_the_first_record(tmp_path: Path) -> None:
    grade = {"run_id": "r1", "task_id": "t", "passed": True, "tool_calls": 2}
    assert detect_kind(SHOP_RUNS) == "runs"
    answers = lines(tmp_path / "answers.jsonl", {"run_id": "q1", "final_answer": "Paris."})
    assert detect_kind(answers) == "runs"
    assert detect_kind(lines(tmp_path / "results.jsonl", grade)) == "results"
    assert detect_kind(lines(tmp_path / "verdicts.jsonl", VERDICT)) == "verdicts"


def test_a_file_of_something_else_says_to_pass_kind(tmp_path: Path) -> None:
    path = lines(tmp_path / "other.jsonl", {"hello": 1})
    with pytest.raises(DataError) as raised:
        detect_kind(path)
    assert str(raised.value) == (
        f"{path}:1: not runs (no run_id), results (no passed) or verdicts (no rubric_id "
        "and status); pass --kind runs|results|verdicts"
    )


def test_a_verdict_twice_for_one_judge_is_refused_at_its_second_line(tmp_path: Path) -> None:
    path = lines(tmp_path / "verdicts.jsonl", VERDICT, {**VERDICT, "run_id": "r2"}, VERDICT)
    with pytest.raises(DataError) as raised:
        check_records(path, "verdicts")
    assert str(raised.value) == (
        f"{path}:3: run_id: duplicate verdict on run 'r1' by openai/gpt-4o-mini under "
        "goal_completion version v1 (first at line 1); each run has one verdict per rubric "
        "version and judge model"
    )


def test_a_runs_file_read_whole_passes(tmp_path: Path) -> None:
    check_records(SHOP_RUNS, "runs")
    with pytest.raises(DataError, match="no records: nothing to import"):
        check_records(lines(tmp_path / "empty.jsonl"), "runs")
