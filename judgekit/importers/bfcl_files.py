"""BFCL's own files joined into entries: a result file, its possible answers, its questions.

BFCL keeps a model's output (``{"id", "result"}`` per line), the possible answers
(``{"id", "ground_truth"}``) and the questions with their function docs (``{"id",
"question", "function"}``) in three JSONL files. Each result line is joined by id with the
other two into the one-entry form :func:`judgekit.importers.bfcl.bfcl_task` and
:func:`~judgekit.importers.bfcl.bfcl_run` read. A result file whose lines already carry
``possible_answer`` and ``function`` (one file per category, as in BFCL score dumps) needs
neither.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgekit._util.jsonl import iter_json_lines
from judgekit.errors import DataError
from judgekit.formats.run import Run
from judgekit.formats.task import Task
from judgekit.importers.bfcl import bfcl_run, bfcl_task
from judgekit.importers.runs_output import write_suite_file

__all__ = [
    "BfclImport",
    "bfcl_tasks_and_runs",
    "category_of",
    "join_bfcl_files",
    "write_bfcl_suite",
]

# An id is its category, then the entry's number (live ids add "-<n>-<n>").
_ENTRY_NUMBER = re.compile(r"_\d+(-\d+)*$")


def category_of(entry_id: str) -> str:
    """The category in a BFCL id: ``simple_python_3`` → ``simple_python``."""
    return _ENTRY_NUMBER.sub("", entry_id)


def _by_id(path: Path, needed: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """A file's lines by id; a line without an id or a needed field names its line."""
    lines: dict[str, dict[str, Any]] = {}
    for line, record in iter_json_lines(path):
        missing = [f for f in ("id", *needed) if not isinstance(record, dict) or f not in record]
        if missing:
            raise DataError(
                f"a line here is an object with {', '.join(('id', *needed))}",
                path=path,
                line=line,
                field=missing[0],
            )
        lines[str(record["id"])] = record
    return lines


def join_bfcl_files(
    results: Path, *, answers: Path | None = None, questions: Path | None = None
) -> Iterator[dict[str, Any]]:
    """Each result line as one entry, joined by id with its answer and its question."""
    answer_lines = _by_id(answers, ("ground_truth",)) if answers else None
    question_lines = _by_id(questions, ("function",)) if questions else None
    for line, record in iter_json_lines(results):
        if not isinstance(record, dict) or "id" not in record:
            raise DataError(
                "a BFCL result line is an object with id and result",
                path=results,
                line=line,
                field="id",
            )
        entry_id = str(record["id"])
        entry = {"category": category_of(entry_id), **record}
        if "result" in record:
            entry["model_result_raw"] = record["result"]
        for lines, source, field, key in (
            (answer_lines, answers, "ground_truth", "possible_answer"),
            (question_lines, questions, "function", "function"),
        ):
            if lines is None:
                continue
            if entry_id not in lines:
                raise DataError(
                    f"entry {entry_id!r} has no line in {source} (is it the same category?)",
                    path=results,
                    line=line,
                    field="id",
                )
            entry[key] = lines[entry_id][field]
            entry.setdefault("question", lines[entry_id].get("question"))
        _require_joined(entry, results, line)
        yield entry


def _require_joined(entry: dict[str, Any], path: Path, line: int) -> None:
    if "irrelevance" in entry["category"]:
        return  # no call is the answer: nothing else to read
    for key, option in (("possible_answer", "--answers"), ("function", "--entries")):
        if key not in entry:
            raise DataError(
                f"entry {entry['id']!r} has no {key}; give BFCL's file of them with {option}",
                path=path,
                line=line,
                field=key,
            )


class BfclImport:
    """The tasks and runs of entries, read one entry at a time, and what did not decode."""

    def __init__(self) -> None:
        self.tasks: list[Task] = []
        self.undecoded = 0

    def runs(self, entries: Iterator[dict[str, Any]]) -> Iterator[Run]:
        """The run of each entry, collecting its task on the way."""
        for entry in entries:
            self.tasks.append(bfcl_task(entry))
            run = bfcl_run(entry)
            if "bfcl_decode_error" in run.metadata:
                self.undecoded += 1
            yield run

    def undecoded_line(self) -> str | None:
        """The console line counting results that are text BFCL could not decode."""
        if not self.undecoded:
            return None
        noun = "result is" if self.undecoded == 1 else "results are"
        return (
            f"{self.undecoded} {noun} text BFCL could not decode as calls "
            "(each imported with no tool call, its text the final answer; "
            "metadata.bfcl_decode_error says why)"
        )


def bfcl_tasks_and_runs(entries: Iterator[dict[str, Any]], tasks: list[Task]) -> Iterator[Run]:
    """The run of each entry, collecting its task into ``tasks`` on the way."""
    for entry in entries:
        tasks.append(bfcl_task(entry))
        yield bfcl_run(entry)


def write_bfcl_suite(tasks: list[Task], path: Path, *, name: str) -> None:
    """The tasks as a suite file ``judgekit grade --tasks`` reads."""
    suite = {
        "suite": name,
        "description": "BFCL entries: the calls BFCL's AST checker accepts (judgekit import bfcl)",
        "tasks": [task.model_dump(mode="json", exclude_defaults=True) for task in tasks],
    }
    write_suite_file(suite, path)
