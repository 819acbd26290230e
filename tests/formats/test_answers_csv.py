"""Final answers given as a CSV file, or as a folder holding runs.jsonl: what judge reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.formats.answers_csv import iter_answer_rows
from judgekit.formats.run import Run
from judgekit.formats.runs_input import iter_given_runs, runs_file_of
from tests.conftest import REPO

EXAMPLE = REPO / "examples" / "answers"


def answers(tmp_path: Path, text: str, name: str = "answers.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def error(path: Path) -> str:
    with pytest.raises(DataError) as caught:
        list(iter_given_runs(path))
    return str(caught.value)


def test_each_row_is_a_run_with_no_tool_call(tmp_path: Path) -> None:
    path = answers(
        tmp_path,
        "\ufefftask_id, run_id,final_answer,input,reference\r\n"
        'capital,q1,"Paris, of course.",Capital of France?,Paris\r\n'
        "\r\n"
        ',q2,"Two lines:\nsee ""above""",,\r\n'
        "sum,q3,,2+2?,4\r\n",
    )
    assert list(iter_answer_rows(path)) == [
        (2, Run(run_id="q1", task_id="capital", input="Capital of France?",
                final_answer="Paris, of course.", reference="Paris")),
        (4, Run(run_id="q2", final_answer='Two lines:\nsee "above"')),
        (6, Run(run_id="q3", task_id="sum", input="2+2?", final_answer="", reference="4")),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "run_id,input,answer\nq1,a,b\n",
            "1: unknown column 'answer'; the columns are run_id, input, final_answer, "
            "reference, task_id (the last two optional)",
        ),
        (
            "run_id,final_answer\nq1,b\n",
            "1: no input column; the header must name run_id, input, final_answer (reference "
            "and task_id may follow)",
        ),
        ("run_id,input,final_answer,input\n", "1: column 'input' appears twice"),
        (
            "run_id,input,final_answer\nq1,a,b\nq2,a,b,c\n",
            '3: 4 cells, the header has 3 columns; quote a cell that holds a comma ("like, this")',
        ),
        (
            'run_id,input,final_answer\nq1,a,b\nq2,"a\nb,c\n',
            "3: not valid CSV from this line on: unexpected end of data; a cell holding a "
            'quote, a comma or a line break is quoted, its quotes doubled ("say ""hi""")',
        ),
        ("run_id,input,final_answer\n ,a,b\n", "2: run_id: empty; each row needs a run id"),
        (
            "run_id,input,final_answer\nq1,a,b\nq1,c,d\n",
            "3: run_id: duplicate run id 'q1' (first at line 2); each run id must appear once",
        ),
    ],
)
def test_a_malformed_file_names_its_line_and_what_is_valid(
    tmp_path: Path, text: str, message: str
) -> None:
    path = answers(tmp_path, text)
    assert error(path) == f"{path}:{message}"


def test_a_file_without_rows_has_no_runs(tmp_path: Path) -> None:
    for text in ("", "run_id,input,final_answer\n\n"):
        path = answers(tmp_path, text)
        assert error(path) == f"no runs in {path}"


def test_bytes_that_are_not_utf8_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_bytes(b"run_id,input,final_answer\nq1,caf\xe9,b\n")
    assert error(path).startswith(f"{path}: ")
    assert "UTF-8" in error(path)


def test_a_folder_stands_for_its_runs_file(tmp_path: Path) -> None:
    assert error(tmp_path) == f"{tmp_path}: no runs.jsonl in this folder"
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"run_id": "q1", "final_answer": "Paris."}\n', encoding="utf-8")
    assert runs_file_of(tmp_path) == runs
    assert runs_file_of(runs) == runs
    assert list(iter_given_runs(tmp_path)) == [(1, Run(run_id="q1", final_answer="Paris."))]


def test_the_example_answers_are_the_same_runs_in_both_formats() -> None:
    jsonl = [run for _, run in iter_given_runs(EXAMPLE / "answers.jsonl")]
    csv = [run for _, run in iter_given_runs(EXAMPLE / "answers.csv")]
    assert jsonl == csv
    assert len(jsonl) == 6
    assert all(run.reference and run.input and not run.tool_calls for run in jsonl)
