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
    with open_regular(runs) as fh:          # OSError for a FIFO, a device: never blocks
        ...

Input is read from regular files only (or symbolic links to them): a FIFO, a device, a
socket is refused before it is read (``FILE: not a regular file (a FIFO)``), since
opening a FIFO with no writer waits for ever and ``/dev/zero`` never ends. No command
reads standard input; ``-`` is a file name like any other.
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import AbstractContextManager
from pathlib import Path
from typing import BinaryIO

from judgekit.errors import DataError, ErrorTable, map_exception, map_exceptions

__all__ = [
    "PATH_ERRORS",
    "READ_ERRORS",
    "NotRegularFileError",
    "exists",
    "file_in_folder",
    "is_dir",
    "is_file",
    "named_path_errors",
    "open_regular",
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


def os_reason_with_file(exc: OSError) -> str:
    """The file the system names, then its reason (``/x/judgekit.sqlite: Permission denied``)."""
    return f"{exc.filename}: {os_reason(exc)}" if exc.filename is not None else os_reason(exc)


class NotRegularFileError(OSError):
    """What is at a path to read is not a regular file: a FIFO, a device, a socket."""

    def __init__(self, kind: str, path: str | Path) -> None:
        super().__init__(errno.EINVAL, f"not a regular file ({kind})", str(path))


READ_ERRORS: ErrorTable[str | Path | None] = {
    NotRegularFileError: lambda exc, where: DataError(os_reason(exc), path=where),
    # An absent file, and a folder where a file should be, keep the plainer wording of
    # judgekit's other readers.
    FileNotFoundError: lambda exc, where: DataError("no such file", path=where),
    IsADirectoryError: lambda exc, where: DataError("is a folder, expected a file", path=where),
    OSError: lambda exc, where: DataError(f"cannot read: {os_reason(exc)}", path=where),
}
"""How the system's refusal to read a path reads; the context is the path."""


def read_error(exc: OSError, path: str | Path | None = None) -> DataError:
    """``PATH: cannot read: REASON`` for an OSError met while reading ``path``.

    The path the system names (``exc.filename``) wins over ``path``: reading a folder of
    task suites, it is the one file that failed.
    """
    error = map_exception(exc, READ_ERRORS, exc.filename if exc.filename is not None else path)
    assert isinstance(error, DataError)  # READ_ERRORS has a row for every OSError
    return error


def reading(path: str | Path | None = None) -> AbstractContextManager[None]:
    """Any OSError in the block becomes :func:`read_error`'s DataError. Wrap reads only:
    a failed write is an :class:`~judgekit.errors.OutputError`."""
    return map_exceptions(_READING, path)


# reading()'s table: READ_ERRORS, with the path the system names winning over the block's.
_READING: ErrorTable[str | Path | None] = {OSError: read_error}


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


def file_in_folder(path: str | Path, name: str) -> Path:
    """``path`` itself, or the file ``name`` inside it when it is a folder (``judgekit run
    --out out`` writes ``out/runs.jsonl``; ``grade`` writes ``results.jsonl``); a folder
    without one is a DataError naming the folder."""
    p = Path(path)
    if not is_dir(p):
        return p
    inside = p / name
    if not is_file(inside):
        raise DataError(f"no {name} in this folder", path=p)
    return inside


# What is not a regular file, by the test of its mode; anything else (a door, a port) is
# "a special file".
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _refuse_irregular(mode: int, path: str | Path) -> None:
    """Raise the OSError a reader maps for anything but a regular file at ``path``."""
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    kind = next((name for test, name in _KINDS if test(mode)), "a special file")
    raise NotRegularFileError(kind, path)


def open_regular(path: str | Path) -> BinaryIO:
    """``path`` opened for reading in binary, if it is (or leads to) a regular file.

    Raises OSError as ``open`` would, and :class:`NotRegularFileError` for a FIFO, a
    device or a socket. The path is looked at before it is opened (opening a FIFO waits
    for a writer; opening a device may act on it), then opened without waiting and looked
    at again, so a FIFO put in its place in between is refused just the same.
    """
    _refuse_irregular(os.stat(path).st_mode, path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        _refuse_irregular(os.fstat(fd).st_mode, path)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a regular file; any failure is a DataError naming it."""
    with reading(path), open_regular(path) as fh:
        return fh.read()


def read_text(path: str | Path) -> str:
    """The text of a UTF-8 file; any failure, or bytes that are not UTF-8, is a DataError
    naming it."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason})", path=path) from None


PATH_ERRORS: ErrorTable[None] = {
    OSError: lambda exc, _: (
        DataError(os_reason(exc), path=exc.filename) if exc.filename is not None else None
    ),
}
"""The command line's last resort: an OSError that names a path (``exc.filename``) and
that no reader turned into a judgekit error is ``PATH: REASON``; one that names no path
(a bug, a closed pipe) passes through with its traceback."""


def named_path_errors() -> AbstractContextManager[None]:
    """A block where :data:`PATH_ERRORS` maps the OSErrors (the original kept as the cause)."""
    return map_exceptions(PATH_ERRORS, None, chain=True)
