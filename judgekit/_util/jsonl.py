"""Streaming reading of JSON-lines files, and JSON read with a readable error.

Readers yield one record at a time so a file of a million runs is never held in memory;
every problem is a DataError naming the file and the line.

The files judgekit appends to line by line (``verdicts.jsonl``, a labels file, a split file,
a run's ``runs.jsonl``) are read through :func:`append_only_lines`, with one policy for
their last line, since a crash mid-append leaves it cut short:

- a last line without its newline that is not one whole JSON value is what such a crash
  leaves: it is ignored with a warning naming the file and line, and the next append cuts
  it off first (:func:`end_torn_tail`);
- a last line without its newline that is one whole JSON value is kept and read as any
  other, and the next append first ends it with a newline;
- any other line that is malformed, the last one included when its newline was written,
  is a DataError naming the file, the line and the field.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, AnyStr, BinaryIO, TypeVar

from pydantic import BaseModel, ValidationError

from judgekit._util.input_paths import open_regular, read_error, reading
from judgekit.errors import DataError, ErrorTable, map_exceptions

__all__ = [
    "LINES_FILE_ERRORS",
    "LINE_ERRORS",
    "TORN_TAIL",
    "append_only_lines",
    "copy_lines",
    "end_torn_tail",
    "is_json_line",
    "iter_appended_models",
    "iter_json_lines",
    "iter_lines",
    "iter_models",
    "open_text",
    "parse_json",
    "read_json_document",
    "validation_error_to_data_error",
    "warn_on_stderr",
]

M = TypeVar("M", bound=BaseModel)


def open_text(path: str | Path, *, newline: str | None = None) -> IO[str]:
    """Open a regular text file for reading, transparently gunzipping ``*.gz``
    (``newline=""``: line endings read as written, as :func:`open` takes it)."""
    p = Path(path)
    with reading(p):
        raw = open_regular(p)
    if p.suffix == ".gz":
        return io.TextIOWrapper(_GzipOwningFile(raw), encoding="utf-8", newline=newline)
    return io.TextIOWrapper(raw, encoding="utf-8", newline=newline)


class _GzipOwningFile(gzip.GzipFile):
    """A GzipFile over an open file that closes that file too (GzipFile leaves a file it
    was given open)."""

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__(fileobj=raw, mode="rb")
        self._raw = raw

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


LINES_FILE_ERRORS: ErrorTable[str | Path] = {
    UnicodeDecodeError: lambda exc, path: DataError(f"not UTF-8 text ({exc.reason})", path=path),
    OSError: lambda exc, path: read_error(exc, path),
    EOFError: lambda exc, path: DataError(f"cannot read: {exc}", path=path),  # a .gz cut short
}
"""What goes wrong reading a lines file, by the file's path."""


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every non-blank line, numbered from 1."""
    with open_text(path) as fh, map_exceptions(LINES_FILE_ERRORS, path):
        for number, text in enumerate(fh, start=1):
            if text.strip():
                yield number, text


TORN_TAIL = "ignored a truncated last line (left by a crash while writing?)"
"""The warning for a last line a crash cut short, after the file and line."""


def warn_on_stderr(message: str) -> None:
    """Say a warning on stderr, as judgekit's commands say theirs."""
    from judgekit._util.terminal_text import visible  # rich loads only for a warning

    sys.stderr.write(f"judgekit: warning: {visible(message, one_line=True)}\n")
    sys.stderr.flush()


def append_only_lines(
    lines: Iterable[AnyStr], path: str | Path, *, warn: Callable[[str], None] = warn_on_stderr
) -> Iterator[tuple[int, AnyStr]]:
    """``(line_number, text)`` of every non-blank line of an append-only file (``lines``:
    the open file, text or bytes), numbered from 1, by the module's policy: a last line
    without its newline that is not one whole JSON value is left out, and ``warn`` is told
    ``<path>:<line>: ignored a truncated last line …``. Parsing the lines is the caller's."""
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        # Text read with newline="" may end a line with a lone "\r": only the last line
        # can end with neither.
        ended = text[-1:] in ("\n", "\r") if isinstance(text, str) else text.endswith(b"\n")
        if not ended and not is_json_line(text):
            warn(f"{path}:{number}: {TORN_TAIL}")
            return
        yield number, text


def iter_appended_models(
    path: str | Path, model: type[M], *, warn: Callable[[str], None] = warn_on_stderr
) -> Iterator[tuple[int, str, M]]:
    """``(line_number, line, record)`` of an append-only file (or a ``.gz``) validated as
    ``model``, streamed, each line as written (its line ending included; none on a last line
    without one): :func:`append_only_lines`' policy for a torn last line, and a malformed
    line a DataError naming the file, the line and the field."""
    with open_text(path, newline="") as fh, map_exceptions(LINES_FILE_ERRORS, path):
        for number, text in append_only_lines(fh, path, warn=warn):
            with map_exceptions(LINE_ERRORS, (path, number)):
                record = model.model_validate_json(text)
            yield number, text, record


def is_json_line(raw: str | bytes) -> bool:
    """Whether ``raw`` is one whole JSON value (a line a crash cut short is not)."""
    try:
        parse_json(raw)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError are both ValueErrors
        return False
    return True


def end_torn_tail(path: Path, appending: BinaryIO, *, content: bytes | None = None) -> None:
    """Before appending to ``path`` (open as ``appending``, in append mode): end a whole
    last line left without its newline, or cut off one a crash left unfinished, so the next
    line starts on a line of its own. ``content``: the file's bytes, when just read under
    the same lock. OSError when the file cannot be read or written."""
    if content is None:
        start, last = _unfinished_line(path)
    else:
        start = content.rfind(b"\n") + 1
        last = content[start:]
    if not last:
        return
    if is_json_line(last):
        appending.write(b"\n")
    else:  # what append_only_lines warned about
        os.ftruncate(appending.fileno(), start)


_TAIL_CHUNK = 4096


def _unfinished_line(path: Path) -> tuple[int, bytes]:
    """Where the file's unfinished last line starts, and its bytes (empty when the file
    ends with a newline); read from the end, so a long file costs no more than a short one."""
    with open_regular(path) as fh:
        end = fh.seek(0, os.SEEK_END)
        position, tail = end, b""
        while position > 0:
            step = min(_TAIL_CHUNK, position)
            position -= step
            fh.seek(position)
            tail = fh.read(step) + tail
            newline = tail.rfind(b"\n")
            if newline >= 0:
                return position + newline + 1, tail[newline + 1 :]
        return 0, tail


def read_json_document(path: str | Path, *, expected: str) -> Any:
    """The one JSON document a text file (``.gz`` too) holds; malformed JSON is a DataError
    naming its line and column and, in words, what the file should hold (``expected``)."""
    with open_text(path) as fh, map_exceptions(LINES_FILE_ERRORS, path):
        text = fh.read()
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            f"malformed JSON at column {exc.colno}: {exc.msg} ({expected})",
            path=path,
            line=exc.lineno,
        ) from None


LINE_ERRORS: ErrorTable[tuple[str | Path, int]] = {
    json.JSONDecodeError: lambda exc, at: DataError(
        f"malformed JSON at column {exc.colno}: {exc.msg}", path=at[0], line=at[1]
    ),
    ValidationError: lambda exc, at: validation_error_to_data_error(exc, path=at[0], line=at[1]),
}
"""What is wrong with one line of a lines file, by the file's path and the line's number."""


def iter_json_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for every JSON line; malformed JSON is a DataError."""
    for number, text in iter_lines(path):
        with map_exceptions(LINE_ERRORS, (path, number)):
            yield number, parse_json(text)


def parse_json(text: str | bytes) -> Any:
    """``json.loads``, where every text that cannot be read is a
    :class:`json.JSONDecodeError` with its position, so one ``except`` names the file and
    line. Besides malformed JSON that covers two texts json.loads fails on otherwise: a
    number of more digits than Python converts (``sys.get_int_max_str_digits()``, 4300 by
    default; a bare ValueError) and nesting deeper than the interpreter's recursion limit
    (a RecursionError). Bytes that are not UTF-8 still raise UnicodeDecodeError.

    >>> parse_json('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> parse_json("[" * 100_000)
    Traceback (most recent call last):
    json.decoder.JSONDecodeError: nested 100000 levels deep, too deep to read: line 1 column 100000 (char 99999)
    """
    try:
        return json.loads(text)
    except RecursionError:
        doc = _json_str(text)
        depth, position = _deepest(doc)
        problem = f"nested {depth} levels deep, too deep to read"
        raise json.JSONDecodeError(problem, doc, position) from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise
    except ValueError:
        doc = _json_str(text)
        limit = sys.get_int_max_str_digits()
        long_number = _long_number(doc, limit) if limit else None
        if long_number is None:
            raise
        digits, position = long_number
        problem = f"a number of {digits} digits, more than the {limit} that can be read"
        raise json.JSONDecodeError(problem, doc, position) from None


def _json_str(text: str | bytes) -> str:
    """The text json.loads read (it decodes bytes by their UTF-8, 16 or 32 encoding)."""
    if isinstance(text, str):
        return text
    return text.decode(json.detect_encoding(text), "surrogatepass")


_JSON_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _long_number(doc: str, limit: int) -> tuple[int, int] | None:
    """The digits and position of the first number longer than ``limit`` digits outside
    the strings of a JSON text, if any."""
    pattern = re.compile(rf'"(?:[^"\\]|\\.)*"|\d{{{limit + 1},}}')
    for token in pattern.finditer(doc):
        if token.group()[0] != '"':
            return len(token.group()), token.start()
    return None


def _deepest(doc: str) -> tuple[int, int]:
    """The deepest nesting of a JSON text, and where it is first reached (strings skipped)."""
    depth = deepest = where = 0
    for token in _JSON_BRACKETS.finditer(doc):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, token.start()
        elif bracket in "]}":
            depth -= 1
    return deepest, where


_FIRST_SAID = {"extra_forbidden": 0}


def validation_error_to_data_error(
    exc: ValidationError, *, path: str | Path | None, line: int | None
) -> DataError:
    """The first problem of a pydantic error as one readable DataError: an unknown field
    before any other (a misspelt field is also a missing one; its spelling is the news, and
    pydantic releases differ in which of the two they list first), then the rest in
    pydantic's order."""
    errors = exc.errors(include_url=False)
    first = min(errors, key=lambda error: _FIRST_SAID.get(error["type"], len(_FIRST_SAID)))
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
        with map_exceptions(LINE_ERRORS, (path, number)):
            yield number, model.model_validate_json(text)


def copy_lines(source: str | Path, target: IO[str]) -> None:
    """Copy a text file's lines into an open file (one an :func:`atomic_writer` gave)."""
    with open_text(source) as src, reading(source):
        for line in src:
            target.write(line)
