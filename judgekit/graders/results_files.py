"""``results.jsonl`` and ``results.csv``: one row per graded run, written atomically.

Both files appear together at the end or not at all, so an error halfway through a file
of runs leaves no partial output behind.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TypeVar

from judgekit._util.atomic_files import atomic_files
from judgekit.formats.grade import Grade, GraderResult
from judgekit.graders.grade_rows import GradeRow, grade_json

GradeT = TypeVar("GradeT", Grade, GradeRow)

CSV_COLUMNS = [
    "run_id",
    "task_id",
    "trial",
    "passed",
    "truth_passed",
    "truth_reason",
    "path_passed",
    "path_reason",
    "state_passed",
    "state_reason",
    "answer_passed",
    "answer_reason",
    "claimed_success",
    "violations",
    "turns",
    "cost_usd",
    "stop_reason",
    "tool_calls",
    "tool_errors",
]


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _grader(result: GraderResult | None) -> list[object]:
    return ["", ""] if result is None else [_cell(result.passed), result.reason]


def csv_row(grade: Grade | GradeRow) -> list[object]:
    """The CSV cells of one grade; a grader the task does not configure is empty."""
    grader = _grader
    return [
        grade.run_id,
        grade.task_id,
        _cell(grade.trial),
        _cell(grade.passed),
        *grader(grade.truth),
        *grader(grade.path),
        *grader(grade.state),
        *grader(grade.answer),
        _cell(grade.claimed_success),
        "; ".join(grade.violations),
        _cell(grade.turns),
        _cell(grade.cost_usd),
        _cell(grade.stop_reason),
        grade.tool_calls,
        grade.tool_errors,
    ]


def _quoted(text: str) -> str:
    """A text cell as csv's default dialect writes it: quoted only when it holds a comma, a
    quote (doubled) or a line end."""
    if '"' in text:
        return '"' + text.replace('"', '""') + '"'
    if "," in text or "\n" in text or "\r" in text:
        return '"' + text + '"'
    return text


def _bool_cell(value: bool | None) -> str:
    return "" if value is None else "true" if value else "false"


def _number_cell(value: float | None) -> str:
    return "" if value is None else str(value)


def _grader_cells(result: GraderResult | None) -> str:
    if result is None:
        return ","
    return ("true," if result.passed else "false,") + _quoted(result.reason)


def csv_line(grade: Grade | GradeRow) -> str:
    """The results.csv line of one grade, as ``csv.writer(...).writerow(csv_row(grade))``
    writes it (the default dialect: quotes only where needed, CRLF), a few times faster."""
    return (
        ",".join(
            [
                _quoted(grade.run_id),
                _quoted(grade.task_id),
                _number_cell(grade.trial),
                _bool_cell(grade.passed),
                _grader_cells(grade.truth),
                _grader_cells(grade.path),
                _grader_cells(grade.state),
                _grader_cells(grade.answer),
                _bool_cell(grade.claimed_success),
                _quoted("; ".join(grade.violations)),
                _number_cell(grade.turns),
                _number_cell(grade.cost_usd),
                _quoted(grade.stop_reason or ""),
                str(grade.tool_calls),
                str(grade.tool_errors),
            ]
        )
        + "\r\n"
    )


def write_results(
    grades: Iterable[GradeT], out_dir: str | Path, *, baseline: str | Path | None = None
) -> Iterator[GradeT]:
    """Write each grade to ``out_dir/results.jsonl`` and ``results.csv`` (and the same
    lines as results.jsonl to ``baseline``, when given) as it passes through.

    A generator: iterate it to the end and the files are renamed into place together, once
    all are written whole (:func:`judgekit._util.atomic_files.atomic_files`); stop early or
    raise and no file is touched. The files are opened before the first grade is asked for,
    so a folder that cannot take one stops the command before any input is read.
    """
    out = Path(out_dir)
    with atomic_files() as files:
        jsonl = files.text(out / "results.jsonl")
        table = files.text(out / "results.csv")
        copy = files.text(baseline) if baseline is not None else None
        csv.writer(table).writerow(CSV_COLUMNS)
        lines: list[str] = []
        rows: list[str] = []
        for grade in grades:
            if isinstance(grade, GradeRow):
                lines.append(grade_json(grade) + "\n")  # the same text, without pydantic
            else:
                lines.append(grade.model_dump_json() + "\n")
            rows.append(csv_line(grade))
            if len(lines) == _WRITE_EVERY:
                _write(lines, rows, jsonl, copy, table)
            yield grade
        _write(lines, rows, jsonl, copy, table)


_WRITE_EVERY = 1000  # grades written in one go: few calls, little held


def _write(
    lines: list[str], rows: list[str], jsonl: IO[str], copy: IO[str] | None, table: IO[str]
) -> None:
    text = "".join(lines)
    jsonl.write(text)
    if copy is not None:
        copy.write(text)
    table.write("".join(rows))
    lines.clear()
    rows.clear()
