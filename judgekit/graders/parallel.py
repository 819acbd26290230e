"""``grade --jobs N``: worker processes grade chunks of a runs file, merged in input order.

The parent cuts the file at line ends into chunks of about :data:`CHUNK_BYTES`, numbering
each chunk's first line; forked workers (they inherit the loaded tasks) read, grade and
render their chunk (results.jsonl lines, results.csv rows, the facts a summary tallies);
the parent writes and tallies the chunks in file order, checking run ids across them.
At most ``2 × jobs`` chunks are in flight, so memory stays flat in the size of the file.

Errors are never reported from here: a worker that meets anything wrong in its chunk
(a malformed line, an unknown task, text that is not UTF-8) gives the chunk up, and so does
the parent on a repeated run id or a file with no run. The caller then grades the file in
one process, which raises exactly the error (the first bad line by file order) that one
job would; nothing is written before that.
"""

from __future__ import annotations

import csv
import multiprocessing
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import IO, NamedTuple

from judgekit._util.atomic_files import atomic_files
from judgekit._util.input_paths import open_regular
from judgekit.errors import DataError
from judgekit.formats.run import RunIdLines, read_run_line
from judgekit.formats.run_lean import lean_run
from judgekit.formats.task import TaskSet
from judgekit.graders.grade import grade_row
from judgekit.graders.grade_rows import GradeRow
from judgekit.graders.results_files import CSV_COLUMNS, csv_text, results_line
from judgekit.graders.summary import GradeFacts, GradeSummary, grade_facts

CHUNK_BYTES = 1 << 20  # about 400 runs of 2.5 KB: few round trips, little held at once


class Chunk(NamedTuple):
    start: int  # byte offset of the chunk's first line
    end: int  # byte offset just past its last line's newline (or the end of the file)
    first_line: int  # that first line's number, from 1


class GradedChunk(NamedTuple):
    jsonl: str  # the results.jsonl lines of its runs
    csv: str  # their results.csv rows
    facts: list[GradeFacts]
    run_ids: list[str]  # every run read, graded or passed over, in order
    lines: list[int]  # the line of each


class _GiveUp(Exception):
    """Leave this file to one process (which will raise the right error, if any)."""


def chunks(path: Path, size: int | None = None) -> Iterator[Chunk]:
    """The file cut at line ends. Raises :class:`_GiveUp` for a file that is not plain
    newline-separated bytes: gzipped, or holding a carriage return (which text mode reads
    as a line end of its own, numbering lines differently)."""
    size = size or CHUNK_BYTES
    if path.suffix == ".gz":
        raise _GiveUp
    try:
        fh = open_regular(path)
    except OSError:  # one process names the file and what is wrong with it
        raise _GiveUp from None
    with fh:
        start, line = 0, 1
        while True:
            try:
                block = fh.read(size)
                if block and not block.endswith(b"\n"):
                    block += fh.readline()  # up to the next line end, or the end of the file
            except OSError:
                raise _GiveUp from None
            if not block:
                return
            if b"\r" in block:
                raise _GiveUp
            end = start + len(block)
            yield Chunk(start, end, line)
            start, line = end, line + block.count(b"\n")


_TASKS: TaskSet | None = None  # the worker's tasks, inherited from the parent by fork


def _use_tasks(tasks: TaskSet) -> None:
    global _TASKS
    _TASKS = tasks


def grade_chunk(path: Path, chunk: Chunk, skip_unknown: bool) -> GradedChunk | None:
    """Grade the runs of one chunk as the one-process path would; None if any doubt."""
    tasks = _TASKS
    assert tasks is not None, "grade_chunk runs in a worker started by grade_in_parallel"
    try:
        with open_regular(path) as fh:
            fh.seek(chunk.start)
            text = fh.read(chunk.end - chunk.start).decode("utf-8")
        pieces = text.split("\n")
        if text.endswith("\n"):
            pieces.pop()
        jsonl: list[str] = []
        grades: list[GradeRow] = []
        facts: list[GradeFacts] = []
        run_ids: list[str] = []
        lines: list[int] = []
        for number, piece in enumerate(pieces, start=chunk.first_line):
            if not piece.strip():
                continue
            run = read_run_line(piece, (path, number), lean=lean_run)
            run_ids.append(run.run_id)
            lines.append(number)
            task = tasks.get(run.task_id)
            if task is None:
                if skip_unknown and run.task_id is not None:
                    continue
                return None
            grade = grade_row(run, task)
            jsonl.append(results_line(grade))
            grades.append(grade)
            facts.append(grade_facts(grade))
        rows = csv_text(grades)
    except Exception:  # anything at all: one process does this file and says what is wrong
        return None
    return GradedChunk("".join(jsonl), rows, facts, run_ids, lines)


def grade_in_parallel(
    runs_path: Path,
    tasks: TaskSet,
    *,
    jobs: int,
    skip_unknown: bool,
    keep_failures: int,
    out_dir: Path | None,
    baseline: Path | None,
) -> GradeSummary | None:
    """Grade with ``jobs`` worker processes; None (nothing written) when the file must be
    graded in one process instead: bad input, or a platform that cannot fork."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    pool = ProcessPoolExecutor(
        jobs,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_use_tasks,
        initargs=(tasks,),
    )
    try:
        summary = GradeSummary(keep_failures=keep_failures)
        graded = _in_order(pool, runs_path, jobs, skip_unknown)
        if out_dir is None:
            _merge(graded, runs_path, summary, [], None)
        else:
            with atomic_files() as files:
                written = [files.text(out_dir / "results.jsonl")]
                if baseline is not None:
                    written.append(files.text(baseline))
                table = files.text(out_dir / "results.csv")
                csv.writer(table).writerow(CSV_COLUMNS)
                _merge(graded, runs_path, summary, written, table)
        return summary
    except _GiveUp:
        return None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _in_order(
    pool: ProcessPoolExecutor, path: Path, jobs: int, skip_unknown: bool
) -> Iterator[GradedChunk]:
    """Each chunk graded, in file order, with at most ``2 × jobs`` chunks in flight."""
    pending: deque[Future[GradedChunk | None]] = deque()
    for chunk in chunks(path):
        pending.append(pool.submit(grade_chunk, path, chunk, skip_unknown))
        if len(pending) >= 2 * jobs:
            yield _result(pending.popleft())
    while pending:
        yield _result(pending.popleft())


def _result(future: Future[GradedChunk | None]) -> GradedChunk:
    graded = future.result()
    if graded is None:
        raise _GiveUp
    return graded


def _merge(
    graded: Iterator[GradedChunk],
    path: Path,
    summary: GradeSummary,
    jsonl_files: list[IO[str]],
    csv_file: IO[str] | None,
) -> None:
    """Check the run ids across chunks, tally and write each chunk in order."""
    seen = RunIdLines(path)
    for chunk in graded:
        try:
            for run_id, line in zip(chunk.run_ids, chunk.lines, strict=True):
                seen.add(run_id, line)
        except DataError:
            raise _GiveUp from None
        for facts in chunk.facts:
            summary.add_facts(facts)
        for file in jsonl_files:
            file.write(chunk.jsonl)
        if csv_file is not None:
            csv_file.write(chunk.csv)
    if not len(seen):
        raise _GiveUp
