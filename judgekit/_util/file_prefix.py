"""The digest of an append-only file's whole lines, so a record can say what it was
computed from and later tell an append (still valid) from an edit, a deletion or a
truncation (not).

Only whole lines count: a last line without its newline is what the next append cuts off
(cut short by a crash) or ends (whole; see :mod:`judgekit._util.jsonl`), so it is never
part of the prefix a record keeps::

    prefix = whole_lines_prefix(Path("labels/goal_completion.jsonl"))
    ...
    prefix_change(Path("labels/goal_completion.jsonl"), prefix)  # None while it holds
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from judgekit._util.input_paths import open_regular

__all__ = ["FilePrefix", "prefix_change", "prefix_of", "whole_lines_prefix"]


@dataclass(frozen=True)
class FilePrefix:
    """The first ``length`` bytes of a file (its whole lines) and their sha256 (hex)."""

    length: int
    sha256: str


def prefix_of(data: bytes) -> FilePrefix:
    """The prefix of ``data`` that ends with its last newline.

    >>> prefix_of(b'{"a": 1}\\n{"b"').length
    9
    """
    whole = data[: data.rfind(b"\n") + 1]
    return FilePrefix(len(whole), hashlib.sha256(whole).hexdigest())


def whole_lines_prefix(path: Path) -> FilePrefix:
    """The prefix of the file at ``path`` that ends with its last newline (OSError when it
    cannot be read)."""
    with open_regular(path) as fh:
        return prefix_of(fh.read())


def prefix_change(path: Path, prefix: FilePrefix) -> Literal["shorter", "changed"] | None:
    """How the file at ``path`` no longer begins with ``prefix``: it is ``shorter`` than
    the prefix, or its first bytes ``changed``; None when it still begins with it (the same
    file, perhaps with lines appended). OSError when it cannot be read."""
    with open_regular(path) as fh:
        head = fh.read(prefix.length)
    if len(head) < prefix.length:
        return "shorter"
    if hashlib.sha256(head).hexdigest() != prefix.sha256:
        return "changed"
    return None
