"""What an output path names, and so how judgekit's writers write to it.

Every file a user names for output (``-o``, ``--out``, ``--save-baseline``, ``--plot``,
``--suite-out``) is written by :mod:`judgekit._util.atomic_files`, which asks
:func:`output_target` first. The path may name:

* nothing yet, or a regular file: created, or replaced whole (a temporary file renamed over
  it);
* a symbolic link to a regular file, or to nothing yet: followed; the file it leads to is
  replaced whole and the link is kept;
* an open descriptor of this process (``/dev/stdout``, ``/dev/fd/3``, ``/proc/self/fd/1``):
  written through that descriptor, with its offset and append mode, whatever it leads to
  (a pipe, a terminal, or the file a shell opened for ``>`` or ``>>``);
* a character or block device (``/dev/null``) or a FIFO: opened and written in place, as
  ``open()`` would (opening a FIFO waits for a reader);
* a socket, a folder, or a symbolic link that loops: refused, one
  :class:`~judgekit.errors.OutputError` line.

So a writer never renames over anything but a regular file: ``-o /dev/null`` leaves the
device a device, and ``-o /dev/stdout`` writes to standard output.

:func:`refuse_output_over_input` is the other question a command asks of its outputs,
before it writes anything: is one of them a file it reads?
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from judgekit.errors import OutputError

__all__ = ["OutputTarget", "open_in_place", "output_target", "refuse_output_over_input"]

# /proc/PID/fd/N (or a thread's /proc/PID/task/TID/fd/N): a process's open descriptor N.
_DESCRIPTOR: Final = re.compile(r"/proc/(\d+)(?:/task/\d+)?/fd/(\d+)")
_MAX_LINKS: Final = 40  # as the kernel follows at most 40 links in a path


@dataclass(frozen=True)
class OutputTarget:
    """How the file at ``path`` (as the user named it) is written.

    ``replaced`` is the regular file renamed over (the end of a symbolic link; None: the
    path is written in place), ``descriptor`` this process's descriptor the path names.
    """

    path: Path
    replaced: Path | None
    descriptor: int | None = None


def output_target(path: str | Path) -> OutputTarget:
    """What ``path`` names (see the module's documentation); an :class:`OutputError` for a
    socket, a folder or a looping link. A path the system cannot look at for a reason of
    its folder (absent, a file, a loop) is left to the writer, which names the folder."""
    named = Path(path)
    descriptor = _own_descriptor(named)
    if descriptor is not None:
        return OutputTarget(named, None, descriptor)
    try:
        mode = os.stat(named).st_mode
    except FileNotFoundError:
        return OutputTarget(named, _followed(named))  # nothing yet, or a link to nothing yet
    except OSError as exc:
        if exc.errno == errno.ELOOP and os.path.islink(named):
            raise OutputError(f"cannot write {named}: {exc.strerror}") from None
        return OutputTarget(named, named)
    if stat.S_ISREG(mode):
        return OutputTarget(named, _followed(named))
    if stat.S_ISDIR(mode):
        raise OutputError(f"cannot write {named}: it is a folder")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode):
        return OutputTarget(named, None)
    raise OutputError(
        f"cannot write {named}: it is {_kind(mode)}; an output is a file, a device or a FIFO"
    )


def open_in_place(target: OutputTarget) -> int:
    """A descriptor writing to a target that is not replaced: a duplicate of the process's
    own descriptor, or the device or FIFO opened for writing (waiting for a FIFO's reader)."""
    try:
        if target.descriptor is not None:
            return os.dup(target.descriptor)
        return os.open(target.path, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise OutputError(f"cannot write {target.path}: {exc.strerror or exc}") from None


def refuse_output_over_input(
    outputs: Iterable[str | Path | None], inputs: Iterable[str | Path | None]
) -> None:
    """An :class:`OutputError` naming both when an output is the same file as an input (by
    device and inode, so through links and other spellings too), before anything is
    written: writing it would replace what the command reads. None entries are skipped;
    devices and paths not there yet are never an input's file."""
    read = [(Path(p), _identity(p)) for p in inputs if p is not None]
    for output in outputs:
        if output is None:
            continue
        written = _identity(output)
        if written is None:
            continue
        for path, identity in read:
            if identity == written:
                raise OutputError(
                    f"cannot write {output}: it is {path}, which this command reads "
                    "(name another output file)"
                )


def _identity(path: str | Path) -> tuple[int, int] | None:
    """Device and inode of the regular file ``path`` leads to; None for anything else."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return (found.st_dev, found.st_ino) if stat.S_ISREG(found.st_mode) else None


def _followed(path: Path) -> Path:
    """The file a symbolic link leads to (followed to its end), or ``path`` itself."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def _own_descriptor(path: Path) -> int | None:
    """The descriptor N when following ``path`` link by link reaches /proc/PID/fd/N of this
    process (``/dev/stdout`` → ``/proc/self/fd/1``); None otherwise."""
    hop = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        folder, name = os.path.split(hop)
        hop = os.path.join(os.path.realpath(folder), name)
        found = _DESCRIPTOR.fullmatch(hop)
        if found is not None:
            return int(found[2]) if int(found[1]) == os.getpid() else None
        try:
            link = os.readlink(hop)
        except OSError:
            return None  # not a link (or not there): the path names no descriptor
        hop = os.path.join(os.path.dirname(hop), link)
    return None


def _kind(mode: int) -> str:
    return "a socket" if stat.S_ISSOCK(mode) else "neither a file, a device nor a FIFO"
