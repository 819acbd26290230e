"""The labels file's reader (read_labels) and the item a label is given on (item_text,
item_hash, item_hashes)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.formats.label import item_hash, item_hashes, item_text, read_labels
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import Run
from tests.conftest import REPO

RUBRIC = REPO / "rubrics" / "goal_completion.yaml"


def goal_completion() -> Rubric:
    return load_rubric(RUBRIC)


def line(run_id: str, value: object, labeler: str = "ana") -> str:
    return json.dumps(
        {
            "run_id": run_id,
            "rubric_id": "goal_completion",
            "label": value,
            "labeler": labeler,
            "at": "2026-11-29T10:00:00Z",
        }
    )


def test_a_missing_file_is_an_empty_log(tmp_path: Path) -> None:
    log = read_labels(tmp_path / "none.jsonl", goal_completion())
    assert (log.lines, log.warnings, log.current) == ([], [], {})


def test_a_folder_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError) as caught:
        read_labels(tmp_path, goal_completion())
    assert str(caught.value) == f"{tmp_path}: is a folder, expected a file"


def test_a_truncated_last_line_is_ignored_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "goal_completion.jsonl"
    path.write_text(line("r1", "pass") + "\n\n" + line("r2", "fail")[:40])
    log = read_labels(path, goal_completion())
    assert [lab.run_id for lab in log.lines] == ["r1"]
    assert log.warnings == [
        f"{path}:3: ignored a truncated last line (left by a crash while writing?)"
    ]


def test_a_label_of_another_rubric_is_a_data_error(tmp_path: Path) -> None:
    path = tmp_path / "goal_completion.jsonl"
    path.write_text(line("r1", "pass").replace('"goal_completion"', '"tone"') + "\n")
    with pytest.raises(DataError) as caught:
        read_labels(path, goal_completion())
    assert str(caught.value) == (
        f"{path}:1: rubric_id: a label for rubric 'tone' in the file of rubric 'goal_completion'"
    )


def test_labels_are_normalised_to_the_scale(tmp_path: Path) -> None:
    path = tmp_path / "goal_completion.jsonl"
    path.write_text(line("r1", True) + "\n" + line("r2", "FAIL") + "\n")
    log = read_labels(path, goal_completion())
    assert [lab.label for lab in log.lines] == ["pass", "fail"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            line("r1", "pass") + "\n{not json\n" + line("r2", "pass") + "\n",
            "{path}:2: malformed JSON: Expecting property name enclosed in double quotes",
        ),
        (
            line("r1", "pass") + "\n" + line("r2", "maybe") + "\n",
            '{path}:2: label: unknown label "maybe" for the binary scale of goal_completion; '
            'valid labels are "pass", "fail"',
        ),
        (
            line("r1", "maybe"),  # a complete label, just without the final newline
            '{path}:1: label: unknown label "maybe" for the binary scale of goal_completion; '
            'valid labels are "pass", "fail"',
        ),
        (
            '{"run_id": "r1", "rubric_id": "goal_completion", "label": "pass", "at": "2026-11-29T10:00:00Z"}\n',
            "{path}:1: labeler: required field is missing",
        ),
    ],
)
def test_a_corrupt_line_is_a_data_error_naming_file_and_line(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "goal_completion.jsonl"
    path.write_text(text)
    with pytest.raises(DataError) as caught:
        read_labels(path, goal_completion())
    assert str(caught.value) == message.format(path=path)


def test_item_hash_is_the_sha256_of_the_text() -> None:
    assert item_hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_item_hashes_are_of_each_runs_text(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    rows = [
        {
            "run_id": "a",
            "task_id": "t",
            "input": "Refund A100.",
            "tool_calls": [],
            "final_answer": "Done.",
        },
        {"run_id": "b", "task_id": "t", "tool_calls": [], "final_answer": "No."},
    ]
    runs.write_text("".join(json.dumps(row) + "\n" for row in rows))
    text_b = "Task: (no input was recorded)\n\n(no tool calls)\nFinal answer: No."
    assert item_text(Run.model_validate(rows[1])) == text_b
    assert item_hashes([runs], None) == {
        "a": item_hash(item_text(Run.model_validate(rows[0]))),
        "b": hashlib.sha256(text_b.encode()).hexdigest(),
    }
    assert item_hashes([], None) is None


def test_item_hashes_refuse_a_run_id_seen_twice(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    row = json.dumps({"run_id": "a", "task_id": "t", "tool_calls": [], "final_answer": "Done."})
    runs.write_text(row + "\n" + row + "\n")
    with pytest.raises(DataError) as caught:
        item_hashes([runs], None)
    assert str(caught.value) == (
        f"{runs}:2: run_id: duplicate run id 'a' (first at line 1); each run id must appear once"
    )
