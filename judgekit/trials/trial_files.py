"""Writing trials as they finish: ``runs.jsonl``, ``results.jsonl`` and ``results.csv``.

Every trial is appended and flushed as soon as it finishes, so a crash or Ctrl-C keeps all
finished trials and ``--resume`` completes the rest. The files are fsynced at most every
half second (and on close): fsyncing each line would cost more than a fast trial itself,
and a process crash loses nothing that was flushed.
"""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

from judgekit._util.atomic_files import atomic_files, make_folders
from judgekit._util.input_paths import exists, os_reason
from judgekit._util.jsonl import end_torn_tail, warn_on_stderr
from judgekit.errors import ConfigError, DataError, OutputError
from judgekit.formats.grade import Grade
from judgekit.formats.run import Run, RunIdLines, iter_appended_runs, run_json
from judgekit.graders.results_files import CSV_COLUMNS, csv_row

RUNS = "runs.jsonl"
RESULTS = "results.jsonl"
RESULTS_CSV = "results.csv"
FSYNC_INTERVAL_S = 0.5


def read_finished_runs(path: Path) -> list[Run]:
    """The runs of an interrupted ``runs.jsonl``, read and checked (a run id seen twice is
    refused) before the file is touched; then a torn last line (the trial in flight when the
    process died, said on stderr) is cut off, and a whole one without its newline ended."""
    if not exists(path):
        return []
    runs = []
    seen = RunIdLines(path)  # a trial twice would count twice in every rate
    torn: list[str] = []
    ended = True
    for number, text, run in _resumable(path, torn.append):
        runs.append(run)
        seen.add(run.run_id, number)
        ended = text.endswith("\n")
    for warning in torn:
        warn_on_stderr(warning)
    if torn or not ended:
        # Checked first, repaired then: a file that cannot be resumed is left as it was.
        try:
            with path.open("ab") as fh:
                end_torn_tail(path, fh)
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {os_reason(exc)}") from None
    return runs


def _resumable(path: Path, warn: Callable[[str], None]) -> Iterator[tuple[int, str, Run]]:
    try:
        yield from iter_appended_runs(path, warn=warn)
    except DataError as exc:
        if exc.line is None:
            raise
        raise DataError(
            f"cannot resume from this file: {exc.message}",
            path=path,
            line=exc.line,
            field=exc.field,
        ) from None


class TrialFiles:
    """Appends each finished trial to the three files of an output folder."""

    def __init__(self, out_dir: Path, *, resume: bool, previous: list[tuple[Run, Grade]]) -> None:
        self.out_dir = out_dir
        make_folders(out_dir)
        if not resume and exists(out_dir / RUNS):
            raise ConfigError(
                f"{out_dir / RUNS} exists: pass --resume to complete it, or choose another --out"
            )
        # Results are derived from runs: rewrite them whole from the runs kept so far, so a
        # crash between writing a run and its grade leaves nothing out of step.
        with atomic_files() as files:
            files.text(out_dir / RESULTS).writelines(
                grade.model_dump_json() + "\n" for _, grade in previous
            )
            table = csv.writer(files.text(out_dir / RESULTS_CSV))
            table.writerow(CSV_COLUMNS)
            table.writerows(csv_row(grade) for _, grade in previous)
        self._open: dict[str, IO[str]] = {}
        for name in (RUNS, RESULTS, RESULTS_CSV):
            with self._writing(name):
                self._open[name] = (out_dir / name).open("a", encoding="utf-8", newline="")
        self._csv = csv.writer(self._open[RESULTS_CSV])
        self._last_sync = time.monotonic()

    @contextmanager
    def _writing(self, name: str) -> Iterator[None]:
        """A failed write (a full disk) is one OutputError naming the file; what finished
        before it stays, and --resume completes the rest."""
        try:
            yield
        except OSError as exc:
            raise OutputError(
                f"cannot write {self.out_dir / name}: {exc.strerror or exc}"
            ) from None

    def write(self, run: Run, grade: Grade) -> None:
        # The run first: a results line without its run would be dropped on resume anyway.
        try:
            line = run_json(run)
        except DataError as exc:  # the agent's data, too deep to read back: nothing written
            raise DataError(exc.message, path=self.out_dir / RUNS) from None
        lines = {RUNS: line + "\n", RESULTS: grade.model_dump_json() + "\n"}
        for name, line in lines.items():
            with self._writing(name):
                self._open[name].write(line)
                self._open[name].flush()
        with self._writing(RESULTS_CSV):
            self._csv.writerow(csv_row(grade))
            self._open[RESULTS_CSV].flush()
        if time.monotonic() - self._last_sync >= FSYNC_INTERVAL_S:
            self._sync()

    def _sync(self) -> None:
        for name, fh in self._open.items():
            with self._writing(name):
                os.fsync(fh.fileno())
        self._last_sync = time.monotonic()

    def close(self) -> None:
        try:
            for name, fh in self._open.items():
                with self._writing(name):
                    fh.flush()
            self._sync()
        finally:
            for fh in self._open.values():
                with suppress(OSError):  # a write that failed above fails again: said once
                    fh.close()
