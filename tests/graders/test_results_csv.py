"""results.csv lines written by hand are those csv.writer writes."""

from __future__ import annotations

import csv
import io

import pytest

from judgekit.formats.grade import Grade, GraderResult
from judgekit.graders.results_files import csv_line, csv_row

TEXTS = [
    "plain",
    "",
    "a, b",
    'say "hi"',
    '"',
    "two\nlines",
    "carriage\rreturn",
    "crlf\r\n",
    "nul\x00byte",
    "tab\there",
    " spaced ",
    "ünïcödé — ✓",
    "semi; colon",
]


def _grade(text: str, **changes: object) -> Grade:
    fields: dict[str, object] = {
        "run_id": text or "r",
        "task_id": f"t{text}",
        "trial": 3,
        "passed": False,
        "truth": GraderResult(passed=False, reason=text),
        "path": GraderResult(passed=True, reason=f"{text}, {text}"),
        "state": None,
        "answer": GraderResult(passed=True, reason=""),
        "claimed_success": None,
        "violations": [text, "x"],
        "turns": None,
        "cost_usd": 1e-07,
        "stop_reason": "max_turns",
        "tool_calls": 12,
        "tool_errors": 0,
    }
    fields.update(changes)
    return Grade.model_validate(fields)


def _written(grade: Grade) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerow(csv_row(grade))
    return buffer.getvalue()


@pytest.mark.parametrize("text", TEXTS)
def test_csv_line_is_what_csv_writer_writes(text: str) -> None:
    grade = _grade(text)
    assert csv_line(grade) == _written(grade)


@pytest.mark.parametrize(
    "changes",
    [
        {"trial": None, "turns": 0, "cost_usd": 0.1 + 0.2, "claimed_success": True},
        {"cost_usd": 12345678901234.5, "stop_reason": None, "violations": []},
        {"cost_usd": None, "passed": True, "truth": None, "path": None, "answer": None},
    ],
)
def test_numbers_and_empty_cells_are_what_csv_writer_writes(changes: dict[str, object]) -> None:
    grade = _grade("x", **changes)
    assert csv_line(grade) == _written(grade)


def test_a_line_is_quoted_where_needed() -> None:
    grade = _grade('a "b", c')
    assert csv_line(grade) == (
        '"a ""b"", c","ta ""b"", c",3,false,false,"a ""b"", c",true,'
        '"a ""b"", c, a ""b"", c",,,true,,,"a ""b"", c; x",,1e-07,max_turns,12,0\r\n'
    )
