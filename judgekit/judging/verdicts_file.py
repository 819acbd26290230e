"""``verdicts.jsonl``, the judge's output file: resumed, never emptied by a failed rerun.

Each verdict cost a model call, so it is appended and flushed the moment it finishes: a killed
process loses none that finished. The file is fsynced at most every half second and when
judging ends, not after each line (an fsync can cost more than judging a cached run), so only
a power loss or an OS crash can lose the verdicts of the last half second. A rerun
into the same folder keeps the verdicts already there for the same rubric version and judge
model (and for runs still in the runs file) and asks only for the others; whatever else the
file held (another rubric version, runs no longer judged, a line torn by a crash) is dropped
by replacing the file atomically — and only once the rerun has a verdict of its own to write
or has finished, so a rerun that fails before its first answer leaves the file as it was.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO

from pydantic import ValidationError

from judgekit._util.atomic_files import atomic_writer
from judgekit._util.input_paths import exists
from judgekit._util.jsonl import validation_error_to_data_error
from judgekit.errors import DataError
from judgekit.formats.verdict import Verdict

__all__ = ["VERDICTS_FILE", "VerdictsFile"]

VERDICTS_FILE = "verdicts.jsonl"

FSYNC_INTERVAL_S = 0.5  # what a power loss may lose; a killed process loses nothing flushed


class VerdictsFile:
    """The verdicts of one judge (rubric version × model) over one runs file, in ``folder``.

    ``run_ids`` are the runs being judged; ``resume=False`` (``--no-cache``) keeps nothing, so
    every run is asked again. Use as a context manager; :meth:`finish` on success.
    """

    def __init__(
        self,
        folder: Path,
        *,
        rubric_version: str,
        model: str,
        run_ids: Collection[str],
        resume: bool = True,
    ) -> None:
        self.path = folder / VERDICTS_FILE
        self.kept: dict[str, Verdict] = {}
        self._stale = False  # the file holds lines that the new file will not
        self._fh: IO[str] | None = None
        self._last_sync = 0.0
        if exists(self.path):  # a path that loops is an error, not "no verdicts yet"
            for verdict in self._read_existing():
                same_judge = (verdict.rubric_version, verdict.model) == (rubric_version, model)
                if resume and same_judge and verdict.run_id in run_ids:
                    if verdict.run_id in self.kept:
                        self._stale = True  # a duplicate line: one is enough
                    self.kept[verdict.run_id] = verdict
                else:
                    self._stale = True

    def rewrite_kept(self, verdict: Verdict) -> None:
        """Keep ``verdict`` instead of the kept one of its run (the same answer decided
        again, e.g. abstained under a new promotion): the file is rewritten with it."""
        self.kept[verdict.run_id] = verdict
        self._stale = True

    def append(self, verdict: Verdict) -> None:
        """Write one new verdict and flush it (the first one replaces the file with the
        kept); fsynced with those of the last half second."""
        if self._fh is None:
            self._replace_with_kept()
            self._fh = self.path.open("a", encoding="utf-8")
            self._last_sync = time.monotonic()
        self._fh.write(verdict.model_dump_json() + "\n")
        self._fh.flush()
        if time.monotonic() - self._last_sync >= FSYNC_INTERVAL_S:
            self._sync()

    def finish(self) -> None:
        """Judging ended: a file that still holds other lines is replaced by the kept ones."""
        if self._fh is None and (self._stale or not self.path.exists()):
            self._replace_with_kept()

    def close(self) -> None:
        """Fsync what was appended and close the file, however judging ended."""
        if self._fh is not None:
            try:
                self._sync()
            finally:
                self._fh.close()
                self._fh = None

    def _sync(self) -> None:
        if self._fh is not None:
            os.fsync(self._fh.fileno())
            self._last_sync = time.monotonic()

    def __enter__(self) -> VerdictsFile:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _replace_with_kept(self) -> None:
        with atomic_writer(self.path) as fh:
            for verdict in self.kept.values():
                fh.write(verdict.model_dump_json() + "\n")
        self._stale = False

    def _read_existing(self) -> Iterator[Verdict]:
        """The verdicts in the file, streamed; a last line cut short by a crash is skipped."""
        try:
            with self.path.open("rb") as fh:
                for number, raw in enumerate(fh, start=1):
                    if not raw.strip():
                        continue
                    complete = raw.endswith(b"\n")
                    try:
                        yield Verdict.model_validate_json(raw)
                    except ValidationError as exc:
                        if not complete:  # the line a crash cut short: that verdict is asked again
                            self._stale = True
                            return
                        raise self._unreadable(exc, number) from None
                    if not complete:
                        self._stale = True  # whole but without its newline: rewrite it whole
        except OSError as exc:
            raise DataError(f"cannot read: {exc.strerror or exc}", path=self.path) from None

    def _unreadable(self, exc: ValidationError, line: int) -> DataError:
        error = validation_error_to_data_error(exc, path=self.path, line=line)
        return DataError(
            f"{error.message}; this is an earlier judge's output, which a rerun resumes: "
            "move it away or pass another --out",
            path=self.path,
            line=line,
            field=error.field,
        )
