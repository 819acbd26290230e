"""``results.jsonl`` and ``results.csv``: one row per graded run, written atomically.

Both files appear together at the end or not at all, so an error halfway through a file
of runs leaves no partial output behind.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path

from judgekit.formats.grade import Grade, GraderResult
from judgekit.jsonl import atomic_writer

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


def csv_row(grade: Grade) -> list[object]:
    """The CSV cells of one grade; a grader the task does not configure is empty."""

    def grader(result: GraderResult | None) -> list[object]:
        return ["", ""] if result is None else [_cell(result.passed), result.reason]

    return [
        grade.run_id,
        grade.task_id,
        _cell(grade.trial),
        _cell(grade.passed),
        *grader(grade.truth),
        *grader(grade.path),
        *grader(grade.state),
        _cell(grade.claimed_success),
        "; ".join(grade.violations),
        _cell(grade.turns),
        _cell(grade.cost_usd),
        _cell(grade.stop_reason),
        grade.tool_calls,
        grade.tool_errors,
    ]


def write_results(grades: Iterable[Grade], out_dir: str | Path) -> Iterator[Grade]:
    """Write each grade to ``out_dir/results.jsonl`` and ``results.csv`` as it passes through.

    A generator: iterate it to the end and both files are renamed into place; stop early
    or raise and neither file is touched.
    """
    out = Path(out_dir)
    with ExitStack() as stack:
        jsonl = stack.enter_context(atomic_writer(out / "results.jsonl"))
        table = csv.writer(stack.enter_context(atomic_writer(out / "results.csv")))
        table.writerow(CSV_COLUMNS)
        for grade in grades:
            jsonl.write(grade.model_dump_json())
            jsonl.write("\n")
            table.writerow(csv_row(grade))
            yield grade
