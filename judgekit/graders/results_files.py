"""``results.jsonl`` and ``results.csv``: one row per graded run, written atomically.

Both files appear together at the end or not at all, so an error halfway through a file
of runs leaves no partial output behind.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TypeVar

from judgekit._util.atomic_files import atomic_files
from judgekit.formats.grade import Grade, GraderResult
from judgekit.graders.grade_rows import GradeRow

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


def results_line(grade: Grade | GradeRow) -> str:
    """The results.jsonl line of one grade, its newline included."""
    record = grade.grade() if isinstance(grade, GradeRow) else grade
    return record.model_dump_json() + "\n"


def csv_text(grades: Iterable[Grade | GradeRow]) -> str:
    """The results.csv rows of ``grades``, as :func:`write_results` writes them."""
    buffer = io.StringIO()
    csv.writer(buffer).writerows([csv_row(grade) for grade in grades])
    return buffer.getvalue()


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
        rows: list[list[object]] = []
        for grade in grades:
            lines.append(results_line(grade))
            rows.append(csv_row(grade))
            if len(lines) == _WRITE_EVERY:
                _write(lines, rows, jsonl, copy, table)
            yield grade
        _write(lines, rows, jsonl, copy, table)


_WRITE_EVERY = 1000  # grades written in one go: few calls, little held


def _write(
    lines: list[str],
    rows: list[list[object]],
    jsonl: IO[str],
    copy: IO[str] | None,
    table: IO[str],
) -> None:
    text = "".join(lines)
    jsonl.write(text)
    if copy is not None:
        copy.write(text)
    csv.writer(table).writerows(rows)
    lines.clear()
    rows.clear()
