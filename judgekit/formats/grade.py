"""The Grade format: one row per graded run (``results.jsonl``; ``results.csv`` flattens it),
and its loader."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from judgekit._util.input_paths import file_in_folder, is_dir, is_file
from judgekit._util.jsonl import iter_models
from judgekit.errors import DataError
from judgekit.formats.numbers import Count, NonNegativeFloat
from judgekit.formats.run import RunIdLines, StopReason
from judgekit.formats.shard import (
    SHARD_FILE,
    ShardManifest,
    ShardRunIds,
    check_shard_complete,
    load_shard_manifest,
    shard_folders,
)

RESULTS_FILE = "results.jsonl"


class GraderResult(BaseModel):
    """One grader's verdict on one run, with the reason a person can act on.

    ``passed`` is None when the grader had nothing to check (Truth and Path on a run that
    made no tool call, of a task that expects none): neither a pass nor a failure, and
    counted as neither.
    """

    model_config = ConfigDict(extra="forbid")

    passed: bool | None = Field(description="None: the grader had nothing to check.")
    reason: str


class Grade(BaseModel):
    """Truth, Path, State and Answer on one run. A grader the task does not configure is
    ``None`` (results files written before Answer existed load with ``answer`` None).

    ``passed`` is true only when every configured grader passed, the run completed and it
    broke no rule (``violations``).
    """

    model_config = ConfigDict(extra="forbid")

    run_id: str
    task_id: str
    trial: int | None = None
    passed: bool
    truth: GraderResult | None = None
    path: GraderResult | None = None
    state: GraderResult | None = None
    answer: GraderResult | None = None
    claimed_success: bool | None = None
    violations: list[str] = Field(default_factory=list)
    turns: Count | None = None
    cost_usd: NonNegativeFloat | None = None
    stop_reason: StopReason | None = None
    tool_calls: Count = 0
    tool_errors: Count = 0

    @property
    def first_failure(self) -> str | None:
        """The first failing reason: Truth, Path, State, Answer, a violation, then how the
        run ended."""
        for name in ("truth", "path", "state", "answer"):
            result: GraderResult | None = getattr(self, name)
            if result is not None and result.passed is False:
                return f"{name}: {result.reason}"
        if self.violations:
            return f"violation: {'; '.join(self.violations)}"
        if self.stop_reason not in (None, "completed"):
            return f"run ended with stop_reason {self.stop_reason}"
        return None


def results_path(path: str | Path) -> Path:
    """``path`` itself, or the ``results.jsonl`` inside it when it is a folder."""
    return file_in_folder(path, RESULTS_FILE)


def load_results(path: str | Path) -> Iterator[Grade]:
    """Stream the grades of a ``results.jsonl`` file, or of the one inside a folder.

    A malformed line or a run id seen twice (two result sets concatenated, which would
    count trials twice) raises :class:`~judgekit.errors.DataError` naming the file and
    line; so does a file with no runs, and the results of one shard of a sharded run (a
    part, never the whole: its folder holds a ``shard.json``)::

        report = compare_results(load_results("main/"), load_results("pr/results.jsonl"))
    """
    if is_dir(path):  # a results file beside shard folders is refused there
        shards = shard_folders(Path(path))
        if shards:  # a folder of shard folders reads as the whole sharded run
            yield from _load_shard_results(shards)
            return
    file = results_path(path)
    _refuse_one_shard(file)
    seen = RunIdLines(file)
    for number, grade in iter_models(file, Grade):
        seen.add(grade.run_id, number)
        yield grade
    if not len(seen):
        raise DataError("no graded runs in this file", path=file)


def _refuse_one_shard(file: Path) -> None:
    """Refuse the results file of one shard's folder, read as if it were a whole run."""
    manifest = file.parent / SHARD_FILE
    if file.name == RESULTS_FILE and is_file(manifest):
        shard = load_shard_manifest(manifest).label
        raise DataError(
            f"the results of shard {shard} alone, a part of its run: give the folder that "
            f"holds all {shard.count} shards' folders",
            path=file,
        )


def _load_shard_results(shards: list[tuple[Path, ShardManifest]]) -> Iterator[Grade]:
    """The grades of every shard in turn; a run id in two shards, or a shard with fewer
    grades than the trials it owes (interrupted), is refused."""
    seen = ShardRunIds()
    for folder, manifest in shards:
        file = results_path(folder)
        count = 0
        for number, grade in iter_models(file, Grade):
            seen.add(grade.run_id, file, number)
            count += 1
            yield grade
        check_shard_complete(manifest, count, file)
