"""``verdicts.jsonl``, the judge's output file: resumed by content, never emptied by a failed
rerun, and nothing it held ever lost.

Each verdict cost a model call, so it is appended and flushed the moment it finishes: a killed
process loses none that finished. The file is fsynced at most every half second and when
judging ends, not after each line (an fsync can cost more than judging a cached run), so only
a power loss or an OS crash can lose the verdicts of the last half second.

A rerun into the same folder reuses a verdict only when it answers the same question: the
same rubric version, judge model and endpoint, a run still judged, and the same content of
that run (the verdict's ``input_digest``, see :mod:`judgekit.judging.judged_input`). A run id
alone says nothing: another runs file, or the same tasks run again after the agent changed,
reuses the ids for other answers. Every other line the file held (another judge's, another
content's, a verdict written before verdicts recorded their content) is not reused but kept
apart, byte for byte, in ``verdicts.earlier.jsonl`` beside it, so ``verdicts.jsonl`` holds one
verdict per run of this judging and nothing earlier is lost; only a last line torn by a crash,
which is no verdict, is dropped. Both files are replaced atomically (the earlier file first),
and only once the rerun has a verdict of its own to write or has finished, so a rerun that
fails before its first answer leaves them as they were.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO

from pydantic import ValidationError

from judgekit._util.atomic_files import atomic_bytes_writer, atomic_writer
from judgekit._util.input_paths import exists, open_regular, read_error
from judgekit._util.jsonl import validation_error_to_data_error
from judgekit.errors import DataError
from judgekit.formats.verdict import Verdict

__all__ = ["EARLIER_VERDICTS_FILE", "VERDICTS_FILE", "VerdictsFile"]

VERDICTS_FILE = "verdicts.jsonl"
EARLIER_VERDICTS_FILE = "verdicts.earlier.jsonl"  # beside it: the lines not reused, kept

# Why an earlier line is not reused: what the console counts after "kept apart …, not reused:".
CHANGED = "judged other content under the same run id"
ANOTHER_ENDPOINT = "from another endpoint"
ANOTHER_JUDGE = "of another rubric version or model"
NO_DIGEST = "without a record of the content judged (an older verdicts file)"
NOT_JUDGED_NOW = "of runs not judged now"
NO_CACHE = "asked again under --no-cache"
SUPERSEDED = "superseded by a later line of their run"

FSYNC_INTERVAL_S = 0.5  # what a power loss may lose; a killed process loses nothing flushed


class VerdictsFile:
    """The verdicts of one judge (rubric version × model × endpoint) over one runs file.

    ``run_ids`` are the runs being judged; ``resume=False`` (``--no-cache``) reuses nothing, so
    every run is asked again. The verdicts of the file that may be reused are
    :attr:`candidates` until :meth:`resume` is given the digests of the runs now judged; it
    leaves in :attr:`kept` those whose content is unchanged. Use as a context manager;
    :meth:`finish` on success.
    """

    def __init__(
        self,
        folder: Path,
        *,
        rubric_version: str,
        model: str,
        run_ids: Collection[str],
        endpoint: str | None = None,
        resume: bool = True,
    ) -> None:
        self.path = folder / VERDICTS_FILE
        self.earlier_path = folder / EARLIER_VERDICTS_FILE
        self.kept: dict[str, Verdict] = {}
        self.candidates: dict[str, Verdict] = {}
        # Lines kept apart so far (written with the next replacement), and those written.
        self.set_apart: Counter[str] = Counter()
        self._apart: list[tuple[bytes, str]] = []
        self._candidate_lines: dict[str, bytes] = {}
        self._judge = (rubric_version, model, endpoint)
        self._stale = False  # the file holds lines that the new file will not
        self._fh: IO[str] | None = None
        self._last_sync = 0.0
        if exists(self.path):  # a path that loops is an error, not "no verdicts yet"
            for raw, verdict in self._read_existing():
                self._sort(raw, verdict, run_ids, resume)

    def _sort(self, raw: bytes, verdict: Verdict, run_ids: Collection[str], resume: bool) -> None:
        """A line of the file: a candidate for reuse, or kept apart saying why."""
        why = _not_reusable(verdict, self._judge, run_ids) if resume else NO_CACHE
        if why is not None:
            self._keep_apart(raw, why)
            return
        earlier = self._candidate_lines.get(verdict.run_id)
        if earlier is not None:
            self._keep_apart(earlier, SUPERSEDED)
        self.candidates[verdict.run_id] = verdict
        self._candidate_lines[verdict.run_id] = raw

    def resume(self, digests: Mapping[str, str]) -> None:
        """Keep each candidate whose run's content digest is still its ``input_digest``; the
        others judged other content under the same run id, and are kept apart."""
        for run_id, verdict in self.candidates.items():
            if digests.get(run_id) == verdict.input_digest:
                self.kept[run_id] = verdict
            else:
                self._keep_apart(self._candidate_lines[run_id], CHANGED)
        self.candidates.clear()
        self._candidate_lines.clear()

    def _keep_apart(self, raw: bytes, why: str) -> None:
        self._apart.append((raw if raw.endswith(b"\n") else raw + b"\n", why))
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
        if self.candidates:  # a bug, not bad input: nothing may be dropped unexamined
            raise RuntimeError("VerdictsFile.resume() must decide the candidates first")
        if self._apart:
            self._write_earlier()  # first: a crash between the two loses nothing
        with atomic_writer(self.path) as fh:
            for verdict in self.kept.values():
                fh.write(verdict.model_dump_json() + "\n")
        self._stale = False

    def _write_earlier(self) -> None:
        """Add the lines kept apart to the earlier-verdicts file, rewritten atomically; a line
        it already holds (kept apart by a rerun that crashed before replacing
        ``verdicts.jsonl``) is not added twice."""
        held: set[bytes] = set()
        with atomic_bytes_writer(self.earlier_path) as fh:
            if exists(self.earlier_path):
                try:
                    with open_regular(self.earlier_path) as earlier:
                        for line in earlier:
                            line = line if line.endswith(b"\n") else line + b"\n"
                            held.add(line)
                            fh.write(line)
                except OSError as exc:
                    raise read_error(exc, self.earlier_path) from None
            for line, why in self._apart:
                if line not in held:
                    held.add(line)
                    fh.write(line)
                self.set_apart[why] += 1
        self._apart.clear()

    def _read_existing(self) -> Iterator[tuple[bytes, Verdict]]:
        """Each line of the file with its verdict, streamed; a last line cut short by a crash
        is skipped."""
        try:
            with open_regular(self.path) as fh:
                for number, raw in enumerate(fh, start=1):
                    if not raw.strip():
                        continue
                    complete = raw.endswith(b"\n")
                    try:
                        verdict = Verdict.model_validate_json(raw)
                    except ValidationError as exc:
                        if not complete:  # the line a crash cut short: that verdict is asked again
                            self._stale = True
                            return
                        raise self._unreadable(exc, number) from None
                    if not complete:
                        self._stale = True  # whole but without its newline: rewrite it whole
                    yield raw, verdict
        except OSError as exc:
            raise read_error(exc, self.path) from None

    def _unreadable(self, exc: ValidationError, line: int) -> DataError:
        error = validation_error_to_data_error(exc, path=self.path, line=line)
        return DataError(
            f"{error.message}; this is an earlier judge's output, which a rerun resumes: "
            "move it away or pass another --out",
            path=self.path,
            line=line,
            field=error.field,
        )


def _not_reusable(
    verdict: Verdict, judge: tuple[str, str, str | None], run_ids: Collection[str]
) -> str | None:
    """Why ``verdict`` cannot answer for this judging whatever its run's content, or None."""
    rubric_version, model, endpoint = judge
    if verdict.run_id not in run_ids:
        return NOT_JUDGED_NOW
    if (verdict.rubric_version, verdict.model) != (rubric_version, model):
        return ANOTHER_JUDGE
    if verdict.input_digest is None:
        return NO_DIGEST
    if verdict.endpoint != endpoint:
        return ANOTHER_ENDPOINT
    return None
