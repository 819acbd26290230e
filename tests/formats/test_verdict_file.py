"""load_verdicts: the one loader of verdicts.jsonl files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import load_verdicts
from judgekit.formats.verdict_scores import ScaleCheck
from tests.conftest import REPO


def _row(run_id: str, score: object, version: str) -> str:
    return json.dumps(
        {
            "run_id": run_id,
            "rubric_id": "goal_completion",
            "rubric_version": version,
            "model": "openai/gpt-4o-mini",
            "status": "scored",
            "score": score,
            "at": "2026-11-29T10:00:00+00:00",
        }
    )


def test_verdicts_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    path.write_text(_row("b", "pass", "v1") + "\n\n" + _row("a", "fail", "v1") + "\n")
    assert [(v.run_id, v.score) for v in load_verdicts(path)] == [("b", "pass"), ("a", "fail")]


def test_a_malformed_line_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    path.write_text(_row("a", "pass", "v1") + "\n" + '{"run_id": 3}\n')
    with pytest.raises(DataError) as caught:
        load_verdicts(path)
    assert str(caught.value) == f"{path}:2: run_id: Input should be a valid string (got 3)"


def test_a_check_refuses_a_score_off_the_scale(tmp_path: Path) -> None:
    rubric = load_rubric(REPO / "rubrics" / "goal_completion.yaml")
    path = tmp_path / "verdicts.jsonl"
    path.write_text(_row("a", "maybe", rubric_version(rubric)) + "\n")
    assert [v.score for v in load_verdicts(path)] == ["maybe"]
    with pytest.raises(DataError) as caught:
        load_verdicts(path, check=ScaleCheck([rubric]))
    assert str(caught.value) == (
        f'{path}:1: score: "maybe" is not on the binary scale of goal_completion; a scored '
        'verdict\'s score is one of: "pass", "fail"'
    )


def test_an_abstained_verdicts_score_is_checked_too(tmp_path: Path) -> None:
    rubric = load_rubric(REPO / "rubrics" / "goal_completion.yaml")
    path = tmp_path / "verdicts.jsonl"
    row = json.loads(_row("a", "maybe", rubric_version(rubric)))
    path.write_text(json.dumps({**row, "status": "abstained", "confidence": 0.4}) + "\n")
    with pytest.raises(DataError) as caught:
        load_verdicts(path, check=ScaleCheck([rubric]))
    assert str(caught.value).startswith(
        f'{path}:1: score: "maybe" is not on the binary scale of goal_completion'
    )
    path.write_text(json.dumps({**row, "status": "abstained", "score": "fail"}) + "\n")
    (verdict,) = load_verdicts(path, check=ScaleCheck([rubric]))
    assert (verdict.status, verdict.score, verdict.confidence) == ("abstained", "fail", None)
