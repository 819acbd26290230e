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
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from judgekit.errors import ConfigError, DataError
from judgekit.formats.grade import Grade
from judgekit.formats.run import Run, RunIdLines
from judgekit.jsonl import atomic_writer, validation_error_to_data_error
from judgekit.report.results_files import CSV_COLUMNS, csv_row

RUNS = "runs.jsonl"
RESULTS = "results.jsonl"
RESULTS_CSV = "results.csv"
FSYNC_INTERVAL_S = 0.5


def read_finished_runs(path: Path) -> list[Run]:
    """The runs of an interrupted ``runs.jsonl``; a torn last line (the trial in flight
    when the process died) is cut off the file, once the rest is read and checked (a run
    id seen twice is refused)."""
    if not path.exists():
        return []
    whole = path.read_bytes()
    data = whole[: whole.rfind(b"\n") + 1]
    runs = []
    seen = RunIdLines(path)  # a trial twice would count twice in every rate
    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
        if not line.strip():
            continue
        try:
            runs.append(Run.model_validate_json(line))
            seen.add(runs[-1].run_id, number)
        except ValidationError as exc:
            error = validation_error_to_data_error(exc, path=path, line=number)
            raise DataError(
                f"cannot resume from this file: {error.message}",
                path=path,
                line=number,
                field=error.field,
            ) from None
    if len(data) < len(whole):
        # Checked first, cut then: a file that cannot be resumed is left as it was.
        with path.open("r+b") as fh:
            fh.truncate(len(data))
    return runs


class TrialRecorder:
    """Appends each finished trial to the three files of an output folder."""

    def __init__(self, out_dir: Path, *, resume: bool, previous: list[tuple[Run, Grade]]) -> None:
        self.out_dir = out_dir
        out_dir.mkdir(parents=True, exist_ok=True)
        if not resume and (out_dir / RUNS).exists():
            raise ConfigError(
                f"{out_dir / RUNS} exists: pass --resume to complete it, or choose another --out"
            )
        # Results are derived from runs: rewrite them whole from the runs kept so far, so a
        # crash between writing a run and its grade leaves nothing out of step.
        with atomic_writer(out_dir / RESULTS) as fh:
            fh.writelines(grade.model_dump_json() + "\n" for _, grade in previous)
        with atomic_writer(out_dir / RESULTS_CSV) as fh:
            table = csv.writer(fh)
            table.writerow(CSV_COLUMNS)
            table.writerows(csv_row(grade) for _, grade in previous)
        self._runs: IO[str] = (out_dir / RUNS).open("a", encoding="utf-8")
        self._results: IO[str] = (out_dir / RESULTS).open("a", encoding="utf-8")
        self._csv_file: IO[str] = (out_dir / RESULTS_CSV).open("a", encoding="utf-8", newline="")
        self._csv = csv.writer(self._csv_file)
        self._last_sync = time.monotonic()

    def _files(self) -> Iterator[IO[str]]:
        yield from (self._runs, self._results, self._csv_file)

    def record(self, run: Run, grade: Grade) -> None:
        self._runs.write(run.model_dump_json() + "\n")
        self._results.write(grade.model_dump_json() + "\n")
        self._csv.writerow(csv_row(grade))
        for fh in self._files():
            fh.flush()
        if time.monotonic() - self._last_sync >= FSYNC_INTERVAL_S:
            self._sync()

    def _sync(self) -> None:
        for fh in self._files():
            os.fsync(fh.fileno())
        self._last_sync = time.monotonic()

    def close(self) -> None:
        for fh in self._files():
            fh.flush()
        self._sync()
        for fh in self._files():
            fh.close()
