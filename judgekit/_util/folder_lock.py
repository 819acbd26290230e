"""One judgekit process at a time writes an output folder.

A command that writes files into a folder (``run --out``, ``grade --out``, ``report -o``,
``monitor --plot``, ``calibrate --plot``, the demo) holds the folder's lock while it reads
what the folder holds and writes its files::

    with output_folder_lock(out_dir):
        ...  # read the folder's files, write them

The lock is taken without waiting: a second process on the same folder stops at once with
``FOLDER is in use by another judgekit process (pid N)`` (a :class:`FolderInUseError`, so
the CLI exits 2) rather than interleave its writes with the first one's.

It is an advisory ``flock`` on ``FOLDER/.judgekit.lock``, which the kernel releases when its
holder exits however it exits (SIGKILL included): a crash never leaves a folder locked. The
holder's pid is written to ``FOLDER/.judgekit.pid`` once it holds the lock (not into the
lock file, which a contender opening it may truncate) and removed on release. The lock file
itself stays: removing a file another process may have opened would let two processes lock
two different files of the same name. A folder the command created and left empty (it
failed before writing anything) is removed again, lock file and all.

Taking the lock also removes the temporary files of atomic writes that a killed judgekit
process left in the folder (:func:`judgekit._util.atomic_files.remove_stale_temporaries`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Final

from judgekit._util.atomic_files import make_folders, remove_empty_folders, remove_stale_temporaries
from judgekit._util.output_targets import output_target
from judgekit._util.processes import process_is_running
from judgekit.errors import FolderInUseError, OutputError

__all__ = ["LOCK_FILE", "PID_FILE", "output_folder_lock", "parent_folder_lock"]

LOCK_FILE: Final = ".judgekit.lock"
PID_FILE: Final = ".judgekit.pid"

# How long a contender waits for the holder to write its pid before saying "pid unknown":
# the holder writes it right after taking the lock.
_PID_WAIT_S: Final = 0.5


@contextmanager
def output_folder_lock(folder: str | Path) -> Iterator[Path]:
    """Hold ``folder``'s lock for the block; yield the folder.

    Creates the folder (and its parents) if needed. Raises :class:`FolderInUseError` when
    another process holds the lock, and :class:`OutputError` when the folder cannot be
    created or written; both before the block runs.
    """
    from filelock import FileLock, Timeout  # loaded only by commands that write a folder

    path = Path(folder)
    created = make_folders(path)
    lock = FileLock(str(path / LOCK_FILE), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise FolderInUseError(path, _holder_pid(path)) from None
    except OSError as exc:
        remove_empty_folders(created)
        raise OutputError(f"cannot write in {path}: {exc.strerror or exc}") from None
    try:
        _write_pid(path)
        remove_stale_temporaries(path)
        yield path
    except BaseException:
        _forget(path, created)
        raise
    finally:
        _remove_pid(path)
        lock.release()


@contextmanager
def parent_folder_lock(file: str | Path) -> Iterator[Path]:
    """:func:`output_folder_lock` of the folder a file is written into (that of the file a
    symbolic link leads to); no lock for a file written in place (``/dev/null``, a FIFO,
    ``/dev/stdout``), which has no temporary file to sweep and leaves no lock file in
    ``/dev``."""
    replaced = output_target(file).replaced
    if replaced is None:
        yield Path(file).parent
        return
    with output_folder_lock(replaced.parent) as folder:
        yield folder


def _write_pid(folder: Path) -> None:
    # Written beside and renamed into place, so a reader never sees half a number.
    partial = folder / f"{PID_FILE}.{os.getpid()}"
    try:
        partial.write_text(f"{os.getpid()}\n", encoding="ascii")
        os.replace(partial, folder / PID_FILE)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise OutputError(f"cannot write in {folder}: {exc.strerror or exc}") from None


def _remove_pid(folder: Path) -> None:
    # A folder made read-only meanwhile keeps it: the next holder overwrites it.
    with suppress(OSError):
        (folder / PID_FILE).unlink(missing_ok=True)


def _forget(folder: Path, created: list[Path]) -> None:
    """The block failed: a folder it created and left with nothing but the lock goes."""
    if not created:
        return
    try:
        left = set(os.listdir(folder))
    except OSError:
        return
    if left - {LOCK_FILE, PID_FILE}:
        return
    _remove_pid(folder)
    try:
        # Still holding the lock: a contender that opened this file finds it unlinked
        # once it gets the lock, and a newcomer creates the folder afresh.
        (folder / LOCK_FILE).unlink(missing_ok=True)
    except OSError:
        return
    remove_empty_folders(created)


def _holder_pid(folder: Path) -> int | None:
    """The pid of the process holding the lock, or None when it cannot be told."""
    deadline = time.monotonic() + _PID_WAIT_S
    while True:
        pid = _read_pid(folder / PID_FILE)
        if pid is not None and process_is_running(pid):
            return pid
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.02)  # the holder has the lock but has not written its pid yet


def _read_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None
