"""A lock held on an open file while it is read or appended, so a reader never sees half a
line and two writers never interleave: ``flock`` on POSIX, ``msvcrt``'s byte lock on
Windows. Each platform's module is imported only when a file is locked, so importing
judgekit needs neither."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

__all__ = ["locked"]

# Windows locks a byte range; this byte, far past any real file's end, stands for the file
# (locking a byte of its content would block other readers of that byte).
_WINDOWS_LOCK_OFFSET = 2**62
_WINDOWS_RETRY_S = 0.05


def locked(fd: int, *, exclusive: bool) -> AbstractContextManager[None]:
    """Hold a lock on ``fd``, shared (readers) or exclusive (a writer), waiting for it.
    Windows has no shared lock: there readers too take it in turn."""
    return _platform_locked(fd, exclusive)


if sys.platform == "win32":  # pragma: no cover - Windows only

    @contextmanager
    def _platform_locked(fd: int, exclusive: bool) -> Iterator[None]:
        import msvcrt

        def lock_byte(mode: int) -> None:
            position = os.lseek(fd, 0, os.SEEK_CUR)
            os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
            try:
                msvcrt.locking(fd, mode, 1)
            finally:
                os.lseek(fd, position, os.SEEK_SET)

        while True:
            try:
                lock_byte(msvcrt.LK_NBLCK)
                break
            except OSError:
                time.sleep(_WINDOWS_RETRY_S)  # held by another process: wait for it
        try:
            yield
        finally:
            lock_byte(msvcrt.LK_UNLCK)

else:

    @contextmanager
    def _platform_locked(fd: int, exclusive: bool) -> Iterator[None]:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
