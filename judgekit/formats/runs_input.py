"""The runs a command is given to judge or label: a runs file (JSONL), an answers CSV, or a
folder holding a ``runs.jsonl`` (the ``--out`` of ``judgekit run``), as ``gate`` takes a
folder holding ``results.jsonl``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from judgekit._util.input_paths import file_in_folder
from judgekit.formats.answers_csv import iter_answer_rows
from judgekit.formats.run import Run, iter_unique_runs

__all__ = ["RUNS_FILE", "iter_given_runs", "runs_file_of"]

RUNS_FILE: Final = "runs.jsonl"


def runs_file_of(path: str | Path) -> Path:
    """The file of runs ``path`` names: itself, or the ``runs.jsonl`` inside a folder."""
    return file_in_folder(path, RUNS_FILE)


def iter_given_runs(path: str | Path) -> Iterator[tuple[int, Run]]:
    """``(line, run)`` of the runs file ``path`` names (:func:`runs_file_of`): a ``.csv``
    file read as final answers (:mod:`judgekit.formats.answers_csv`), any other as JSONL,
    each checked as :func:`judgekit.formats.run.iter_unique_runs` checks a runs file."""
    file = runs_file_of(path)
    if file.suffix.lower() == ".csv":
        return iter_answer_rows(file)
    return iter_unique_runs(file)
