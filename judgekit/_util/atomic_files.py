"""Files that appear whole or not at all, and the folders made for them.

A writer puts the content in a temporary file beside its target, fsyncs it, then renames it
over the target, so a crash or an error leaves either the old file or the whole new one.
A folder created for a file that was never written is removed again; the temporaries of a
killed process are swept by the folder's next lock holder.

Only a regular file is ever renamed over (:mod:`judgekit._util.output_targets` says what a
path names): a symbolic link is followed and the file it leads to replaced, the link kept;
a device, a FIFO or an open descriptor (``/dev/null``, ``/dev/stdout``) is written in
place, where "whole or not at all" cannot hold: what was written before an error stays
written; a socket or a folder is refused.
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from judgekit._util.output_targets import OutputTarget, open_in_place, output_target
from judgekit._util.processes import process_is_running
from judgekit.errors import OutputError

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = [
    "TEMPORARY_SUFFIX",
    "AtomicFiles",
    "atomic_bytes_writer",
    "atomic_files",
    "atomic_writer",
    "make_folders",
    "remove_empty_folders",
    "remove_stale_temporaries",
    "write_bytes_atomically",
]


@contextmanager
def atomic_writer(path: str | Path, *, private: bool = False) -> Iterator[IO[str]]:
    """Write a text file that appears whole or not at all.

    The content goes to a temporary file in the same folder, which is fsynced and then
    renamed over ``path``; if the block raises, the temporary file is removed and ``path``
    is left as it was (a folder created for it is removed again, when still empty). The
    file gets the permissions a plain ``open`` would give it, or, ``private``, is readable
    and writable by its owner only, from its first byte. A folder that cannot be
    created or written is an :class:`OutputError` naming the file.
    """
    with _atomic_file(path, binary=False, private=private) as fh:
        yield fh


@contextmanager
def atomic_bytes_writer(path: str | Path) -> Iterator[IO[bytes]]:
    """:func:`atomic_writer` for a binary file (an image).

    Opening it first and writing at the end proves early that ``path`` can be written,
    before anything else of the command's output is.
    """
    with _atomic_file(path, binary=True) as fh:
        yield fh


def write_bytes_atomically(path: str | Path, data: bytes) -> None:
    """Write a binary file (an image) that appears whole or not at all."""
    with _atomic_file(path, binary=True) as fh:
        fh.write(data)


# Temporary files end with this, and name their writer's pid, so a folder's lock holder can
# tell those a killed process left from those another process is writing.
TEMPORARY_SUFFIX = ".judgekit-tmp"


class _Ready(NamedTuple):
    """A temporary file written whole and fsynced, waiting to be renamed over ``target``
    (the file ``named`` leads to)."""

    tmp_name: str
    target: Path
    created: list[Path]
    named: Path


class AtomicFiles:
    """The files of one :func:`atomic_files` block; open each with :meth:`text` or
    :meth:`binary` (it is a temporary file until the block ends)."""

    def __init__(self, stack: ExitStack, ready: list[_Ready]) -> None:
        self._stack = stack
        self._ready = ready

    def text(self, path: str | Path) -> IO[str]:
        """A text file of the set, opened now: a folder that cannot take it stops the
        command here, before anything is written."""
        fh: IO[str] = self._stack.enter_context(_atomic_file(path, binary=False, ready=self._ready))
        return fh

    def binary(self, path: str | Path) -> IO[bytes]:
        """A binary file (an image) of the set, opened now."""
        fh: IO[bytes] = self._stack.enter_context(
            _atomic_file(path, binary=True, ready=self._ready)
        )
        return fh


@contextmanager
def atomic_files() -> Iterator[AtomicFiles]:
    """Write several files that appear together or not at all.

    Every file is written to a temporary file, flushed and fsynced, and checked to have no
    folder in its place before any is renamed into place; an error before that (a full
    disk, a write refused, the block raising) removes every temporary file and leaves
    every target as it was::

        with atomic_files() as files:
            jsonl, csv = files.text("out/results.jsonl"), files.text("out/results.csv")
            ...

    The renames then follow one another, each atomic: a process killed between two of
    them (or a rename refused in between, which the checks make unlikely) leaves the
    files renamed so far new and the others old, the temporary files of the latter to be
    swept by the folder's next lock holder.

    All or nothing holds among the regular files of the set: a file of it that is a
    device, a FIFO or a descriptor (``/dev/stdout``) is written in place as the block
    writes it, so it holds what was written when the block raises.
    """
    ready: list[_Ready] = []
    published: list[Path] = []
    try:
        with ExitStack() as stack:
            yield AtomicFiles(stack, ready)
        for entry in ready:
            _check_target(entry.target, entry.named)
        for tmp_name, target, _, named in ready:
            try:
                _publish(tmp_name, target, named)
            except OutputError as exc:
                if not published:
                    raise
                replaced = ", ".join(str(path) for path in published)
                raise OutputError(f"{exc} ({replaced} already written)") from None
            published.append(named)
    except BaseException:
        for tmp_name, _, created, _ in ready:
            Path(tmp_name).unlink(missing_ok=True)
            remove_empty_folders(created)
        raise


def _check_target(target: Path, named: Path) -> None:
    """Anything but a regular file (or nothing) where the file should go is refused before
    it is renamed over: a folder, or a device, FIFO or socket put there meanwhile."""
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        return  # nothing there (or a folder the rename names): the rename says
    if stat.S_ISDIR(mode):
        raise OutputError(f"cannot write {named}: it is a folder")
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise OutputError(f"cannot write {named}: it is no longer a regular file")


@contextmanager
def _atomic_file(
    path: str | Path, *, binary: bool, ready: list[_Ready] | None = None, private: bool = False
) -> Iterator[IO[Any]]:
    """A temporary file beside ``path``, renamed over it when the block ends, or (with
    ``ready``) left whole for :func:`atomic_files` to rename; ``path`` itself when it is
    written in place (a device, a FIFO, a descriptor)."""
    where = output_target(path)
    if where.replaced is None:
        with _in_place(where, binary=binary) as fh:
            yield fh
        return
    named, target = where.path, where.replaced
    created = make_folders(target.parent)
    try:
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{target.name}.{os.getpid()}.", suffix=TEMPORARY_SUFFIX, dir=target.parent
        )
    except OSError as exc:
        remove_empty_folders(created)
        raise OutputError(f"cannot write {named}: {_reason(exc)}") from None
    try:
        with _opened(fd, named, binary=binary) as fh:
            yield fh
            _finish(fh, named)
        if ready is None:
            _check_target(target, named)
            _publish(tmp_name, target, named, private=private)
        else:
            ready.append(_Ready(tmp_name, target, created, named))
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        remove_empty_folders(created)
        raise


@contextmanager
def _in_place(where: OutputTarget, *, binary: bool) -> Iterator[IO[Any]]:
    """``where`` opened and written as it is (no temporary file, no rename); flushed when
    the block ends, and fsynced when it is a regular file (a descriptor's)."""
    fd = open_in_place(where)
    with _opened(fd, where.path, binary=binary) as fh:
        yield fh
        _finish(fh, where.path, sync=stat.S_ISREG(os.fstat(fd).st_mode))


def _opened(fd: int, named: Path, *, binary: bool) -> IO[Any]:
    buffered = io.BufferedWriter(_TargetFile(fd, named))
    return buffered if binary else io.TextIOWrapper(buffered, encoding="utf-8", newline="")


class _TargetFile(io.FileIO):
    """The temporary file of ``target``: a write that fails (a full disk, a file size
    limit) is an :class:`OutputError` naming ``target``, wherever in the command it
    happens."""

    def __init__(self, fd: int, target: Path) -> None:
        super().__init__(fd, "wb")
        self.target = target

    def write(self, data: ReadableBuffer, /) -> int:
        try:
            return super().write(data)
        except OSError as exc:
            raise OutputError(f"cannot write {self.target}: {_reason(exc)}") from None


def _finish(fh: IO[Any], target: Path, *, sync: bool = True) -> None:
    try:
        fh.flush()
        if sync:
            os.fsync(fh.fileno())
    except OSError as exc:  # a full disk shows here, when the buffered content is written
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None


def _publish(tmp_name: str, target: Path, named: Path, *, private: bool = False) -> None:
    # mkstemp creates the file readable by its owner only; a report meant to be shared
    # should get the usual 0666 minus the umask, as open() would give it.
    try:
        if not private:
            os.chmod(tmp_name, 0o666 & ~_umask())
        os.replace(tmp_name, target)
    except IsADirectoryError:
        raise OutputError(f"cannot write {named}: it is a folder") from None
    except OSError as exc:
        raise OutputError(f"cannot write {named}: {_reason(exc)}") from None


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def make_folders(folder: str | Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return the folders created, innermost
    first (for :func:`remove_empty_folders`). A folder that cannot be created is an
    :class:`OutputError`."""
    folder = Path(folder)
    missing: list[Path] = []
    step = folder
    while not step.exists() and step.parent != step:
        missing.append(step)
        step = step.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        try:
            os.stat(folder)  # a symbolic link that loops, or leads nowhere, is there too
        except OSError as exc:
            raise OutputError(f"cannot create the folder {folder}: {_reason(exc)}") from None
        raise OutputError(f"cannot create the folder {folder}: a file has that name") from None
    except OSError as exc:
        raise OutputError(f"cannot create the folder {folder}: {_reason(exc)}") from None
    return missing


def remove_empty_folders(folders: list[Path]) -> None:
    """Remove ``folders`` (innermost first) that are still empty: what a failed command
    created and left nothing in."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return  # not empty (another process writes there too) or already gone


def remove_stale_temporaries(folder: str | Path) -> list[Path]:
    """Remove the temporary files that killed judgekit processes left in ``folder``: those
    whose writer (the pid in their name) no longer runs. Call it only holding the folder's
    lock (:mod:`judgekit._util.folder_lock`), so no writer can start meanwhile."""
    removed: list[Path] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(".") and name.endswith(TEMPORARY_SUFFIX)):
            continue
        parts = name[: -len(TEMPORARY_SUFFIX)].split(".")
        if len(parts) < 4 or not parts[-2].isdigit() or process_is_running(int(parts[-2])):
            continue
        path = Path(folder) / name
        try:
            path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed


def _umask() -> int:
    """The process's umask, read without changing it (os.umask would, for a moment, for
    every thread); 0o022 where /proc is not available."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022
