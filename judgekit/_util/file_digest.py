"""The sha256 of a file's bytes, read in chunks (a runs file may be gigabytes)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Final

from judgekit._util.input_paths import open_regular, read_error

__all__ = ["file_sha256"]

_READ_SIZE: Final = 1 << 20


def file_sha256(path: str | Path) -> str:
    """The sha256 (hex) of the regular file at ``path``; a file that is absent, not a regular
    file or cannot be read is a :class:`DataError` naming it."""
    digest = hashlib.sha256()
    try:
        with open_regular(path) as fh:
            while chunk := fh.read(_READ_SIZE):
                digest.update(chunk)
    except OSError as exc:
        raise read_error(exc, path) from None
    return digest.hexdigest()
