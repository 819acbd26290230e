"""Read an append-only JSONL file and append what the reader decides, under one exclusive
lock: two processes deciding at once (assigning a run to a side, claiming a run of a
queue) take turns, and each sees the other's lines before it decides.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from judgekit._util.file_locks import locked
from judgekit._util.jsonl import end_torn_tail
from judgekit.errors import OutputError

__all__ = ["update_appended"]


class _Line(Protocol):
    def model_dump_json(self) -> str: ...


Log = TypeVar("Log")
Line = TypeVar("Line", bound=_Line)


def update_appended(
    path: Path,
    *,
    parse: Callable[[bytes], Log],
    decide: Callable[[Log], Sequence[Line]],
    add: Callable[[Log, Line], None],
) -> Log:
    """``parse`` the file's content (empty when it does not exist), append the lines
    ``decide`` makes of it (a pure function; one JSON line each), and return the log with
    them ``add``-ed; durable (flushed and fsynced) on return. Nothing is written, and the
    file is not created, when ``decide`` makes no line."""
    if not path.exists():
        log = parse(b"")
        if not decide(log):
            return log
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fh = path.open("a+b")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    with fh, locked(fh.fileno(), exclusive=True):
        fh.seek(0)
        content = fh.read()
        log = parse(content)
        lines = decide(log)
        if lines:
            data = b"".join((line.model_dump_json() + "\n").encode("utf-8") for line in lines)
            try:
                end_torn_tail(path, fh, content=content)
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            except OSError as exc:
                raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
            for line in lines:
                add(log, line)
    return log
