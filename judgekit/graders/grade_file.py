"""Grade a file of runs end to end: stream, grade, write results, summarise per task."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from judgekit._util.input_paths import is_dir
from judgekit.formats.run_lean import iter_unique_lean_runs
from judgekit.formats.shard_runs import iter_shard_runs
from judgekit.formats.task import TaskSet
from judgekit.formats.task_files import load_task_files
from judgekit.graders.grade import grade_rows
from judgekit.graders.grade_rows import GradeRow
from judgekit.graders.results_files import write_results
from judgekit.graders.run_view import RunView
from judgekit.graders.shard_output import shard_output
from judgekit.graders.summary import GradeSummary


def grade_file(
    runs_path: str | Path,
    tasks: TaskSet | str | Path,
    *,
    out_dir: str | Path | None = ".",
    skip_unknown: bool = False,
    keep_failures: int = 20,
    baseline: str | Path | None = None,
    jobs: int = 1,
) -> GradeSummary:
    """Grade every run of ``runs_path``; write ``results.jsonl`` and ``results.csv`` in
    ``out_dir`` (skipped when ``out_dir`` is None), and a copy of results.jsonl to
    ``baseline`` when given (all three appear together), and return the per-task summary.

    ``runs_path`` is a runs file, or a folder of the shard folders of one sharded run, graded
    as the whole run (checked as :func:`judgekit.formats.shard_runs.iter_shard_runs` says).
    The runs are read one at a time, so memory does not grow with the file (only the run
    ids are kept, to refuse one seen twice). ``jobs`` above 1 grades chunks of a runs file
    in that many worker processes (:mod:`judgekit.graders.parallel`): the same files,
    summary and errors as one job. On bad input (a malformed line, a repeated run id, no
    runs at all) a :class:`judgekit.DataError` is raised and no result file is written.
    Graded into a shard's own folder (a shard regraded in place), its runs must be those it
    finished with, and its ``shard.json`` then records the new results and the suite
    (:mod:`judgekit.graders.shard_output`).

    >>> summary = grade_file("runs.jsonl", "tasks/shop.yaml", out_dir="out")  # doctest: +SKIP
    >>> summary.passed, summary.runs  # doctest: +SKIP
    (7, 12)
    """
    task_set = tasks if isinstance(tasks, TaskSet) else load_task_files(tasks)
    if out_dir is None:
        return _grade_file(runs_path, task_set, None, skip_unknown, keep_failures, baseline, jobs)
    with shard_output(runs_path, out_dir, task_set):
        return _grade_file(
            runs_path, task_set, out_dir, skip_unknown, keep_failures, baseline, jobs
        )


def _grade_file(
    runs_path: str | Path,
    task_set: TaskSet,
    out_dir: str | Path | None,
    skip_unknown: bool,
    keep_failures: int,
    baseline: str | Path | None,
    jobs: int,
) -> GradeSummary:
    sharded = is_dir(runs_path)
    if jobs > 1 and not sharded:
        from judgekit.graders.parallel import grade_in_parallel

        done = grade_in_parallel(
            Path(runs_path),
            task_set,
            jobs=jobs,
            skip_unknown=skip_unknown,
            keep_failures=keep_failures,
            out_dir=None if out_dir is None else Path(out_dir),
            baseline=None if baseline is None else Path(baseline),
        )
        if done is not None:
            return done
    summary = GradeSummary(keep_failures=keep_failures)
    if sharded:
        grades = _grade_shards(runs_path, task_set, skip_unknown)
    else:
        grades = grade_rows(
            iter_unique_lean_runs(runs_path),
            task_set,
            skip_unknown=skip_unknown,
            source=str(runs_path),
        )
    stream = summary.consume(grades)
    if out_dir is not None:
        stream = write_results(stream, out_dir, baseline=baseline)
    for _ in stream:
        pass  # the generators above do the work as grades flow through
    return summary


def _grade_shards(folder: str | Path, tasks: TaskSet, skip_unknown: bool) -> Iterator[GradeRow]:
    """The grades of a folder of shard folders, in the order of the unsharded run's file:
    by the suites' order of tasks, then by trial (each shard holds its runs in that order)."""
    position = {task.id: index for index, task in enumerate(tasks)}

    def order(run: RunView) -> tuple[int, int]:
        task_id = run.task_id
        return position.get(task_id, len(position)) if task_id else len(position), run.trial or 0

    for file, line, run in iter_shard_runs(folder, order=order):
        yield from grade_rows([(line, run)], tasks, skip_unknown=skip_unknown, source=str(file))
