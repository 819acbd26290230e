"""Streaming JSONL reading and crash-safe writing.

Readers yield one record at a time so a file of a million runs is never held in memory.
Writers replace a file atomically (write a temporary file beside it, fsync, then rename),
so a crash or an error leaves either the old file or the whole new one.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import BaseModel, ValidationError

from judgekit.errors import DataError

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


def open_text(path: str | Path) -> IO[str]:
    """Open a text file for reading, transparently gunzipping ``*.gz``."""
    p = Path(path)
    try:
        if p.suffix == ".gz":
            return io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8")
        return p.open(encoding="utf-8")
    except FileNotFoundError:
        raise DataError("no such file", path=p) from None
    except IsADirectoryError:
        raise DataError("is a folder, expected a file", path=p) from None


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every non-blank line, numbered from 1."""
    with open_text(path) as fh:
        try:
            for number, text in enumerate(fh, start=1):
                if text.strip():
                    yield number, text
        except UnicodeDecodeError as exc:
            raise DataError(f"not UTF-8 text ({exc.reason})", path=path) from None
        except (OSError, EOFError) as exc:
            raise DataError(f"cannot read: {exc}", path=path) from None


def iter_json_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for every JSON line; malformed JSON is a DataError."""
    for number, text in iter_lines(path):
        try:
            yield number, json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"malformed JSON at column {exc.colno}: {exc.msg}", path=path, line=number
            ) from None


def validation_error_to_data_error(
    exc: ValidationError, *, path: str | Path | None, line: int | None
) -> DataError:
    """The first problem of a pydantic error as one readable DataError."""
    first = exc.errors(include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    message = first["msg"]
    if first["type"] == "missing":
        message = "required field is missing"
    elif first["type"] == "extra_forbidden":
        message = "unknown field (check the spelling against `judgekit schema`)"
    elif first["type"] == "json_invalid":
        message = f"malformed JSON: {first.get('ctx', {}).get('error', message)}"
        field = None
    else:
        got = first.get("input")
        if got is not None and not isinstance(got, dict | list):
            message = f"{message} (got {got!r})"
    return DataError(message, path=path, line=line, field=field)


def iter_models(path: str | Path, model: type[M]) -> Iterator[tuple[int, M]]:
    """Yield ``(line_number, record)`` validated as ``model``, one line at a time."""
    for number, text in iter_lines(path):
        try:
            yield number, model.model_validate_json(text)
        except ValidationError as exc:
            raise validation_error_to_data_error(exc, path=path, line=number) from None


@contextmanager
def atomic_writer(path: str | Path) -> Iterator[IO[str]]:
    """Write a text file that appears whole or not at all.

    The content goes to a temporary file in the same folder, which is fsynced and then
    renamed over ``path``; if the block raises, the temporary file is removed and ``path``
    is left as it was. The file gets the permissions a plain ``open`` would give it.
    """
    with _atomic_file(path, binary=False) as fh:
        yield fh


def write_bytes_atomically(path: str | Path, data: bytes) -> None:
    """Write a binary file (an image) that appears whole or not at all."""
    with _atomic_file(path, binary=True) as fh:
        fh.write(data)


@contextmanager
def _atomic_file(path: str | Path, *, binary: bool) -> Iterator[IO[Any]]:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        opened = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="")
        with opened as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        _publish(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _publish(tmp_name: str, target: Path) -> None:
    # mkstemp creates the file readable by its owner only; a report meant to be shared
    # should get the usual 0666 minus the umask, as open() would give it.
    os.chmod(tmp_name, 0o666 & ~_umask())
    os.replace(tmp_name, target)


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


def copy_atomically(source: str | Path, target: str | Path) -> None:
    """Copy a text file so that ``target`` appears whole or not at all."""
    with open_text(source) as src, atomic_writer(target) as dst:
        for line in src:
            dst.write(line)
