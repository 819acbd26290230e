"""The split file's reader: first line wins, and every malformed line is a DataError
naming the file, the line and the field (and what would be valid)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.formats.split_file import read_split_file, split_path

AT = '"at": "2026-11-29T10:00:00Z"'


def test_the_split_file_sits_beside_the_labels_file() -> None:
    assert split_path(Path("labels/goal_completion.jsonl")) == Path(
        "labels/goal_completion.split.jsonl"
    )


def test_a_missing_file_is_an_empty_split(tmp_path: Path) -> None:
    log = read_split_file(tmp_path / "ok.split.jsonl")
    assert (log.assignments, log.spent, log.warnings) == ({}, {}, [])


def test_the_first_assignment_and_the_first_spent_mark_win(tmp_path: Path) -> None:
    path = tmp_path / "ok.split.jsonl"
    path.write_text(
        f'{{"run_id": "r1", "side": "test", "label": "pass", {AT}}}\n'
        "\n"
        f'{{"run_id": "r1", "side": "dev", "label": "fail", {AT}}}\n'
        f'{{"run_id": "r1", "spent": "revealed after labelling", {AT}}}\n'
        f'{{"run_id": "r1", "spent": "later", {AT}}}\n'
        f'{{"run_id": "r2", "side": "dev", {AT}}}'  # a whole line without its newline
    )
    log = read_split_file(path)
    assert {run: (a.side, a.label) for run, a in log.assignments.items()} == {
        "r1": ("test", "pass"),
        "r2": ("dev", None),
    }
    assert log.spent == {"r1": "revealed after labelling"}
    assert log.warnings == []


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("{not json", ":1: malformed JSON: Expecting property name enclosed in double quotes"),
        (
            '["r1", "dev"]',
            ":1: expected a JSON object: an assignment (run_id, side, label, at) "
            "or a spent mark (run_id, spent, at)",
        ),
        (
            f'{{"run_id": "r1", {AT}}}',
            ":1: side: required field is missing: a line assigns a "
            "side (dev or test) or marks a test label spent (spent: why)",
        ),
        (
            f'{{"run_id": "r1", "side": "train", {AT}}}',
            ":1: side: Input should be 'dev' or 'test' (got 'train')",
        ),
        (
            f'{{"run_id": "r1", "side": "dev", "spent": "x", {AT}}}',
            ":1: spent: a line either assigns a side or marks a test label spent, not both",
        ),
        ('{"run_id": "r1", "side": "dev"}', ":1: at: required field is missing"),
        (
            f'{{"run_id": "", "side": "dev", {AT}}}',
            ":1: run_id: String should have at least 1 character (got '')",
        ),
        (
            f'{{"run_id": "r1", "spent": "", {AT}}}',
            ":1: spent: String should have at least 1 character (got '')",
        ),
        (
            f'{{"run_id": "r1", "side": "dev", "labeler": "ana", {AT}}}',
            ":1: labeler: unknown field (check the spelling against `judgekit schema`)",
        ),
    ],
)
def test_a_malformed_line_names_file_line_and_field(tmp_path: Path, line: str, error: str) -> None:
    path = tmp_path / "ok.split.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(DataError) as caught:
        read_split_file(path)
    assert str(caught.value) == f"{path}{error}"


def test_a_bad_line_in_the_middle_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "ok.split.jsonl"
    path.write_text(
        f'{{"run_id": "r1", "side": "dev", {AT}}}\n\n{{"run_id": 3, "side": "dev", {AT}}}\n'
    )
    with pytest.raises(DataError) as caught:
        read_split_file(path)
    assert str(caught.value) == f"{path}:3: run_id: Input should be a valid string (got 3)"


def test_a_folder_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError) as caught:
        read_split_file(tmp_path)
    assert str(caught.value) == f"{tmp_path}: is a folder, expected a file"
