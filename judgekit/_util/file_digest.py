"""The sha256 of a file's bytes, read in chunks (a runs file may be gigabytes)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Final

from judgekit.errors import DataError

__all__ = ["file_sha256"]

_READ_SIZE: Final = 1 << 20


def file_sha256(path: str | Path) -> str:
    """The sha256 (hex) of the file at ``path``; a file that is absent or cannot be read is
    a :class:`DataError` naming it."""
    digest = hashlib.sha256()
    try:
        with Path(path).open("rb") as fh:
            while chunk := fh.read(_READ_SIZE):
                digest.update(chunk)
    except FileNotFoundError:
        raise DataError("no such file", path=path) from None
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", path=path) from None
    return digest.hexdigest()
