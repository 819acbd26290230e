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
which is no verdict, is dropped, with a warning (:mod:`judgekit.formats.verdict`). Both files are replaced atomically (the earlier file first),
and only once the rerun has a verdict of its own to write or has judged every run, so a rerun
stopped before its first new verdict (a budget, a provider that cannot answer) leaves them
byte for byte as they were.

Under ``--no-cache`` every run is asked again, but an earlier verdict that would have been
reused stays in the file until its run's new verdict is in: a rerun stopped halfway (a budget,
a full disk, a kill) leaves each run its earlier verdict or its new one, never neither. The
new line follows the earlier one (a later line of a run supersedes it), and once judging ends
the file is rewritten with one line per run, the earlier lines kept apart.

A write that fails (a full disk) is cut back to the last whole line and reported as an
:class:`~judgekit.errors.OutputError` naming the file; every line written before stays.
"""

from __future__ import annotations

import errno
import os
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import IO

from judgekit._util.atomic_files import atomic_bytes_writer
from judgekit._util.input_paths import exists, open_regular, os_reason, read_error
from judgekit._util.jsonl import warn_on_stderr
from judgekit.errors import DataError, OutputError
from judgekit.formats.verdict import Verdict, iter_verdict_lines

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
    """The verdicts of one judge (rubric version × model × endpoint) over one runs file;
    a jury's (``juror_endpoints``: each juror's model and endpoint) has no endpoint of its own.

    ``run_ids`` are the runs being judged; ``resume=False`` (``--no-cache``) reuses nothing, so
    every run is asked again. The verdicts of the file that may be reused are
    :attr:`candidates` until :meth:`resume` is given the digests of the runs now judged; it
    leaves in :attr:`kept` those whose content is unchanged (in :attr:`standing` under
    ``--no-cache``: in the file until their run's new verdict is). Use as a context manager;
    :meth:`finish` when judging ends.
    """

    def __init__(
        self,
        folder: Path,
        *,
        rubric_version: str,
        model: str,
        run_ids: Collection[str],
        endpoint: str | None = None,
        juror_endpoints: Mapping[str, str | None] | None = None,
        resume: bool = True,
        warn: Callable[[str], None] = warn_on_stderr,
    ) -> None:
        self.path = folder / VERDICTS_FILE
        self.earlier_path = folder / EARLIER_VERDICTS_FILE
        self.kept: dict[str, Verdict] = {}
        self.candidates: dict[str, Verdict] = {}
        # --no-cache: the earlier line of each run that would have been reused.
        self.standing: dict[str, bytes] = {}
        self._reuse = resume
        self._asked_again: set[str] = set()  # standing runs whose new verdict is written
        self._head: list[str] = []  # the standing runs, in the order written before the new
        # Lines kept apart so far (written with the next replacement), and those written.
        self.set_apart: Counter[str] = Counter()
        self._apart: list[tuple[bytes, str]] = []
        self._candidate_lines: dict[str, bytes] = {}
        self._judge = (rubric_version, model, endpoint)
        self._juror_endpoints = None if juror_endpoints is None else dict(juror_endpoints)
        self._stale = False  # the file holds lines that the new file will not
        self._fh: IO[bytes] | None = None
        self._size = 0  # of the file opened for appending: what a failed write is cut back to
        self._last_sync = 0.0
        self._warn = warn
        if exists(self.path):  # a path that loops is an error, not "no verdicts yet"
            for raw, verdict in self._read_existing():
                self._sort(raw, verdict, run_ids)

    def _sort(self, raw: bytes, verdict: Verdict, run_ids: Collection[str]) -> None:
        """A line of the file: a candidate for reuse, or kept apart saying why."""
        why = _not_reusable(verdict, self._judge, run_ids) or self._juror_moved(verdict)
        if why is not None:
            self._keep_apart(raw, why)
            return
        earlier = self._candidate_lines.get(verdict.run_id)
        if earlier is not None:
            self._keep_apart(earlier, SUPERSEDED)
        self.candidates[verdict.run_id] = verdict
        self._candidate_lines[verdict.run_id] = raw

    def _juror_moved(self, verdict: Verdict) -> str | None:
        """A jury's verdict answers only while each juror is asked where it was."""
        if self._juror_endpoints is None:
            return None
        asked = {juror.model: juror.endpoint for juror in verdict.jurors or []}
        return None if asked == self._juror_endpoints else ANOTHER_ENDPOINT

    def resume(self, digests: Mapping[str, str]) -> None:
        """Keep each candidate whose run's content digest is still its ``input_digest``; the
        others judged other content under the same run id, and are kept apart."""
        for run_id, verdict in self.candidates.items():
            if digests.get(run_id) != verdict.input_digest:
                self._keep_apart(self._candidate_lines[run_id], CHANGED)
            elif self._reuse:
                self.kept[run_id] = verdict
            else:  # asked again; it stays until the new verdict is in
                self.standing[run_id] = _whole(self._candidate_lines[run_id])
                self._stale = True
        self.candidates.clear()
        self._candidate_lines.clear()

    def _keep_apart(self, raw: bytes, why: str) -> None:
        self._apart.append((_whole(raw), why))
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
            with self._writing():
                self._fh = self.path.open("ab", buffering=0)
                self._size = os.fstat(self._fh.fileno()).st_size
            self._last_sync = time.monotonic()
        self._write((verdict.model_dump_json() + "\n").encode())
        if verdict.run_id in self.standing:
            self._asked_again.add(verdict.run_id)
        if time.monotonic() - self._last_sync >= FSYNC_INTERVAL_S:
            with self._writing():
                self._sync()

    def _write(self, line: bytes) -> None:
        """Append ``line`` whole or not at all: a write that fails part way is cut back."""
        assert self._fh is not None
        view = memoryview(line)
        try:
            while view:  # an unbuffered write may take only part of the line
                written = self._fh.write(view)
                if not written:  # no room, and no error said so
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                view = view[written:]
        except OSError as exc:
            with suppress(OSError):  # else the torn last line is dropped by the next reader
                os.ftruncate(self._fh.fileno(), self._size)
            raise OutputError(
                f"cannot write {self.path}: {os_reason(exc)}; the verdicts written before are "
                "kept in it: make room and rerun to finish"
            ) from None
        self._size += len(line)

    def finish(self, *, stopped: bool = False) -> None:
        """Judging ended; ``stopped`` when runs are left unjudged (a budget, failures).

        With no new verdict, a stopped judging leaves the file as it was (or absent), and
        one that judged every run replaces a file still holding other lines with the kept
        ones.
        With new verdicts under ``--no-cache``, the earlier lines of the runs asked again
        are kept apart and the file rewritten with one line per run."""
        if self._fh is None:
            if not stopped and (self._stale or not exists(self.path)):
                self._replace_with_kept()
            return
        self.close()
        if self._asked_again:
            self._drop_asked_again()

    def close(self) -> None:
        """Fsync what was appended and close the file, however judging ended."""
        if self._fh is not None:
            try:
                with self._writing():
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
        """The file replaced by the kept verdicts, then the standing lines."""
        if self.candidates:  # a bug, not bad input: nothing may be dropped unexamined
            raise RuntimeError("VerdictsFile.resume() must decide the candidates first")
        if self._apart:
            self._write_earlier()  # first: a crash between the two loses nothing
        with atomic_bytes_writer(self.path) as fh:
            for verdict in self.kept.values():
                fh.write((verdict.model_dump_json() + "\n").encode())
            fh.writelines(self.standing.values())
        self._head = list(self.standing)
        self._stale = False

    def _drop_asked_again(self) -> None:
        """Rewrite the file without the earlier lines of the runs asked again, kept apart
        first: they are the standing lines, after the kept ones and before the new."""
        first = len(self.kept)
        dropped = {first + i for i, run_id in enumerate(self._head) if run_id in self._asked_again}
        for number, run_id in enumerate(self._head):
            if first + number in dropped:
                self._keep_apart(self.standing.pop(run_id), NO_CACHE)
        self._write_earlier()
        with reading_file(self.path) as fh, atomic_bytes_writer(self.path) as out:
            out.writelines(line for number, line in enumerate(fh) if number not in dropped)
        self._asked_again.clear()
        self._head = []

    @contextmanager
    def _writing(self) -> Iterator[None]:
        try:
            yield
        except OSError as exc:
            raise OutputError(f"cannot write {self.path}: {os_reason(exc)}") from None

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
                            line = _whole(line)
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
        """Each line of the file with its verdict, streamed (:func:`iter_verdict_lines`:
        a last line cut short by a crash is left out, with a warning)."""
        try:
            for _, text, verdict in iter_verdict_lines(self.path, warn=self._torn):
                if not text.endswith("\n"):
                    self._stale = True  # whole but without its newline: rewrite it whole
                yield text.encode("utf-8"), verdict
        except DataError as exc:
            if exc.line is None:
                raise
            raise DataError(
                f"{exc.message}; this is an earlier judge's output, which a rerun resumes: "
                "move it away or pass another --out",
                path=self.path,
                line=exc.line,
                field=exc.field,
            ) from None

    def _torn(self, warning: str) -> None:
        """A last line a crash cut short: that verdict is asked again, the file rewritten."""
        self._stale = True
        self._warn(warning)


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


def _whole(raw: bytes) -> bytes:
    """A line with its newline (the file's last line may lack one)."""
    return raw if raw.endswith(b"\n") else raw + b"\n"


@contextmanager
def reading_file(path: Path) -> Iterator[IO[bytes]]:
    """``path`` open for reading; a failure is a DataError naming it."""
    try:
        with path.open("rb") as fh:
            yield fh
    except OSError as exc:
        raise DataError(f"cannot read: {os_reason(exc)}", path=path) from None
