"""Final answers in a CSV file: one run per row, for judging outputs made outside judgekit.

The header names the columns, in any order: ``run_id``, ``input`` and ``final_answer`` are
required, ``reference`` and ``task_id`` optional; nothing else is taken (a misspelt column
would otherwise be dropped without a word). Each row is a :class:`~judgekit.formats.run.Run`
with no tool call. An empty ``input``, ``reference`` or ``task_id`` cell means none was
recorded (CSV has no null); an empty ``final_answer`` is an empty answer. A quoted cell may
span lines; errors name the line its row starts on::

    run_id,input,final_answer,reference
    q1,What is the capital of France?,Paris.,Paris
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from judgekit._util.input_paths import read_text
from judgekit.errors import DataError
from judgekit.formats.run import Run, RunIdLines, no_runs_error

__all__ = ["ANSWER_COLUMNS", "REQUIRED_COLUMNS", "iter_answer_rows"]

REQUIRED_COLUMNS: Final = ("run_id", "input", "final_answer")
ANSWER_COLUMNS: Final = (*REQUIRED_COLUMNS, "reference", "task_id")
# Cells whose emptiness means "not recorded" rather than an empty text.
_ABSENT_WHEN_EMPTY: Final = frozenset({"input", "reference", "task_id"})
_BOM: Final = "\ufeff"  # spreadsheet programs start a UTF-8 CSV with one


def iter_answer_rows(path: str | Path) -> Iterator[tuple[int, Run]]:
    """``(line, run)`` for each row of an answers CSV, checked as a runs file is: a row
    that is not a run, a run id seen before, or a file with no rows raises
    :class:`~judgekit.errors.DataError` naming the file, the line and the column."""
    text = read_text(path)
    reader = csv.reader(text.removeprefix(_BOM).splitlines(keepends=True), strict=True)
    header = _read_row(reader, path, 1)
    if header is None:
        raise no_runs_error(path)
    columns = _check_header(header, path)
    seen = RunIdLines(path)
    while True:
        line = reader.line_num + 1
        row = _read_row(reader, path, line)
        if row is None:
            break
        if not any(row):
            continue  # a blank line between rows
        run = _row_run(row, columns, path, line)
        seen.add(run.run_id, line)
        yield line, run
    if not len(seen):
        raise no_runs_error(path)


def _read_row(reader: Iterator[list[str]], path: str | Path, line: int) -> list[str] | None:
    """The next row (``line``: where it starts), None at the end."""
    try:
        return next(reader)
    except StopIteration:
        return None
    except csv.Error as exc:  # an unclosed quote, a NUL, a field over csv's size limit
        raise DataError(
            f"not valid CSV from this line on: {exc}; a cell holding a quote, a comma or a "
            'line break is quoted, its quotes doubled ("say ""hi""")',
            path=path,
            line=line,
        ) from None


def _check_header(header: list[str], path: str | Path) -> list[str]:
    columns = [name.strip() for name in header]
    valid = ", ".join(ANSWER_COLUMNS)
    for name in columns:
        if name not in ANSWER_COLUMNS:
            raise DataError(
                f"unknown column {name!r}; the columns are {valid} (the last two optional)",
                path=path,
                line=1,
            )
        if columns.count(name) > 1:
            raise DataError(f"column {name!r} appears twice", path=path, line=1)
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    if missing:
        raise DataError(
            f"no {', '.join(missing)} column; the header must name {', '.join(REQUIRED_COLUMNS)} "
            "(reference and task_id may follow)",
            path=path,
            line=1,
        )
    return columns


def _row_run(row: list[str], columns: list[str], path: str | Path, line: int) -> Run:
    if len(row) != len(columns):
        raise DataError(
            f"{len(row)} cells, the header has {len(columns)} columns; quote a cell that "
            'holds a comma ("like, this")',
            path=path,
            line=line,
        )
    fields: dict[str, str] = {}
    for name, cell in zip(columns, row, strict=True):
        if cell or name not in _ABSENT_WHEN_EMPTY:
            fields[name] = cell
    if not fields["run_id"].strip():
        raise DataError("empty; each row needs a run id", path=path, line=line, field="run_id")
    return Run.model_validate(fields)  # every value is a string: nothing left to refuse
