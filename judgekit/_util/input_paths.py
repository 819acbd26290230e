"""Reading the files and folders a user names, where every refusal of the system is one
:class:`~judgekit.errors.DataError` naming the path and the system's reason.

A path can fail for more reasons than being absent: a symbolic link that points at itself
(``Too many levels of symbolic links``), a file nobody may read (``Permission denied``), a
file where a folder should be (``Not a directory``), a failing disk (``Input/output
error``). ``pathlib``'s ``exists()``, ``is_file()`` and ``is_dir()`` answer False to most of
these, which turns them into a misleading "no such file" or, worse, into "no labels yet";
the probes here answer False only when nothing is there, and raise for the rest::

    if is_file(labels):                     # False: no file; DataError: a loop, no access
        ...
    with reading(tasks_path):               # any OSError inside: one DataError line
        tasks = load_tasks(tasks_path)
    text = read_text(path)                  # UTF-8, or a DataError saying it is not
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from judgekit.errors import DataError

__all__ = [
    "exists",
    "is_dir",
    "is_file",
    "named_path_errors",
    "os_reason",
    "read_bytes",
    "read_error",
    "read_text",
    "reading",
]

# What "nothing is there" looks like; any other failure to look is an error worth a line.
_ABSENT = frozenset({errno.ENOENT})


def os_reason(exc: OSError) -> str:
    """The system's reason, without the errno and path ``str(exc)`` adds
    (``Too many levels of symbolic links``)."""
    return exc.strerror or str(exc)


def read_error(exc: OSError, path: str | Path | None = None) -> DataError:
    """``PATH: cannot read: REASON`` for an OSError met while reading ``path``.

    The path the system names (``exc.filename``) wins over ``path``: reading a folder of
    task suites, it is the one file that failed. A folder where a file should be, and an
    absent file, keep the plainer wording of judgekit's other readers.
    """
    where = exc.filename if exc.filename is not None else path
    if isinstance(exc, FileNotFoundError):
        return DataError("no such file", path=where)
    if isinstance(exc, IsADirectoryError):
        return DataError("is a folder, expected a file", path=where)
    return DataError(f"cannot read: {os_reason(exc)}", path=where)


@contextmanager
def reading(path: str | Path | None = None) -> Iterator[None]:
    """Any OSError in the block becomes :func:`read_error`'s DataError. Wrap reads only:
    a failed write is an :class:`~judgekit.errors.OutputError`."""
    try:
        yield
    except OSError as exc:
        raise read_error(exc, path) from None


def _mode(path: str | Path) -> int | None:
    """The ``st_mode`` of what ``path`` leads to, None when nothing is there."""
    try:
        return os.stat(path).st_mode
    except OSError as exc:
        if exc.errno in _ABSENT:
            return None
        raise read_error(exc, path) from None


def exists(path: str | Path) -> bool:
    """Whether something is at ``path``; a path the system cannot follow or search is a
    DataError, not False."""
    return _mode(path) is not None


def is_file(path: str | Path) -> bool:
    """Whether ``path`` is a file (or leads to one); False when nothing, or a folder, is
    there; a DataError when the system cannot tell."""
    mode = _mode(path)
    return mode is not None and not stat.S_ISDIR(mode)


def is_dir(path: str | Path) -> bool:
    """Whether ``path`` is a folder (or leads to one); False when nothing, or a file, is
    there; a DataError when the system cannot tell."""
    mode = _mode(path)
    return mode is not None and stat.S_ISDIR(mode)


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a file; any failure is a DataError naming it."""
    with reading(path):
        return Path(path).read_bytes()


def read_text(path: str | Path) -> str:
    """The text of a UTF-8 file; any failure, or bytes that are not UTF-8, is a DataError
    naming it."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason})", path=path) from None


@contextmanager
def named_path_errors() -> Iterator[None]:
    """The command line's last resort: an OSError that names a path (``exc.filename``) and
    that no reader turned into a judgekit error is a DataError ``PATH: REASON``; one that
    names no path (a bug, a closed pipe) keeps its traceback."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            raise
        raise DataError(os_reason(exc), path=exc.filename) from exc
