"""The JSON values of an export file, wherever its producer put them.

Tools write their exports in three shapes, all read here (plain or ``.gz``):

- JSONL: one value per line (the OpenTelemetry collector's file exporter, most loggers);
- one JSON document, on one line or many;
- pretty-printed values one after another (the OpenTelemetry SDK's ``ConsoleSpanExporter``
  writes ``span.to_json()`` objects, each over many lines), which is neither of the above.

Each value comes with the line it starts on, so a malformed value is named by file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgekit._util.jsonl import (
    LINES_FILE_ERRORS,
    iter_lines,
    open_text,
    parse_json,
    read_json_document,
)
from judgekit.errors import DataError, map_exceptions
from judgekit.importers.locations import Location

__all__ = ["file_head", "iter_json_values"]

_DECODER = json.JSONDecoder()


def iter_json_values(path: str | Path) -> Iterator[tuple[Location, Any]]:
    """Yield ``(where, value)`` for each JSON value of the file, in order.

    A file of one document yields that document (a list stays one value: the caller says
    what its items are). An empty file is a DataError.
    """
    source = Path(path)
    lines = iter_lines(source)
    first = next(lines, None)
    if first is None:
        raise DataError("empty file; expected JSON or JSONL", path=source)
    try:
        first_value = parse_json(first[1])
    except json.JSONDecodeError:
        # The first line alone is not JSON: one value, or several, spread over many lines.
        yield from _spread_values(source)
        return
    yield Location(source, first[0]), first_value
    for number, text in lines:
        try:
            value = parse_json(text)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"malformed JSON at column {exc.colno}: {exc.msg} (JSONL: one value per line)",
                path=source,
                line=number,
            ) from None
        yield Location(source, number), value


def file_head(path: str | Path) -> Any:
    """The file's first JSON value (its first line when it is JSONL), for format sniffing."""
    for _, value in iter_json_values(path):
        return value
    return None  # pragma: no cover - iter_json_values yields at least one value or raises


def _spread_values(path: Path) -> Iterator[tuple[Location, Any]]:
    with open_text(path) as fh, map_exceptions(LINES_FILE_ERRORS, path):
        text = fh.read()
    position = _skip_space(text, 0)
    if _one_document(text, position):
        yield Location(path, None), read_json_document(path, expected="expected JSON or JSONL")
        return
    while position < len(text):
        line = text.count("\n", 0, position) + 1
        try:
            value, end = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"malformed JSON at column {exc.colno}: {exc.msg}", path=path, line=exc.lineno
            ) from None
        except ValueError as exc:  # a number too long to read as an int
            raise DataError(f"malformed JSON: {exc}", path=path, line=line) from None
        except RecursionError:
            raise DataError("JSON nested too deep to read", path=path, line=line) from None
        yield Location(path, line), value
        position = _skip_space(text, end)


def _one_document(text: str, start: int) -> bool:
    # A file that is one value (or one malformed value) is read whole, for its exact error.
    try:
        _, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):  # JSONDecodeError, or a number too long to read
        return True
    return _skip_space(text, end) >= len(text)


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position
