"""What the trace-export importers (LangSmith, Langfuse) share: the records of an export
file, checked fields, texts of JSON values and times.

A trace export holds one record per span (a LangSmith run, a Langfuse observation) in any of
the shapes :mod:`judgekit.importers.json_values` reads, or lists of them; the importers
group them by trace and read each trace as one judgekit run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from judgekit.importers.json_values import iter_json_values
from judgekit.importers.locations import Location, as_object, describe_json

__all__ = [
    "Record",
    "iter_records",
    "optional_count",
    "optional_number",
    "optional_object",
    "seconds_between",
    "value_text",
]


@dataclass(frozen=True)
class Record:
    """One span of a trace export and where it sits in the file."""

    data: dict[str, Any]
    where: Location


def iter_records(path: Path, list_keys: tuple[str, ...], what: str) -> Iterator[Record]:
    """Each record object of the file: a value that is a record, or a list of them, or an
    object holding that list under one of ``list_keys`` (an API page's ``data``)."""
    for where, value in iter_json_values(path):
        if isinstance(value, dict):
            key = next((k for k in list_keys if isinstance(value.get(k), list)), None)
            if key is None:
                yield Record(value, where)
                continue
            where, value = where.key(key), value[key]
        if not isinstance(value, list):
            raise where.error(f"expected {what} or a list of them, got {describe_json(value)}")
        for number, item in enumerate(value):
            yield Record(as_object(item, where.item(number), what), where.item(number))


def optional_object(obj: dict[str, Any], key: str, where: Location) -> dict[str, Any] | None:
    """``obj[key]`` when it is an object, None when absent or null, else a DataError."""
    value = obj.get(key)
    return None if value is None else as_object(value, where.key(key))


def optional_count(obj: dict[str, Any], key: str, where: Location) -> int | None:
    """``obj[key]`` when it is a whole number ≥ 0, None when absent or null."""
    value = obj.get(key)
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    raise where.key(key).error(f"expected a whole number ≥ 0, got {describe_json(value)}")


def optional_number(obj: dict[str, Any], key: str, where: Location) -> float | None:
    """``obj[key]`` as a number ≥ 0 (a decimal string too: LangSmith writes costs so)."""
    value = obj.get(key)
    if value is None:
        return None
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
    if number is None or not number >= 0 or number == float("inf"):
        raise where.key(key).error(f"expected a number ≥ 0, got {describe_json(value)}")
    return number


def value_text(value: Any) -> str | None:
    """A traced input or output as text: a string as it is; a chat message's or a one-key
    object's text; a list of messages' last text; None for an empty object or list;
    anything else as compact JSON.

    >>> value_text({"output": "done"}), value_text({"role": "assistant", "content": "hi"})
    ('done', 'hi')
    >>> value_text({"a": 1, "b": [2]})
    '{"a": 1, "b": [2]}'
    """
    if value is None or isinstance(value, str):
        return value
    if value in ({}, []):
        return None  # nothing was passed
    if isinstance(value, dict):
        if isinstance(value.get("content"), str):
            return str(value["content"])
        if len(value) == 1:
            return value_text(next(iter(value.values())))
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, dict) and "role" in v for v in value)
    ):
        return value_text(value[-1])
    return json.dumps(value, ensure_ascii=False)


def seconds_between(start: Any, end: Any) -> float | None:
    """Seconds from one ISO 8601 time to another, None when either is missing or unreadable."""
    if not isinstance(start, str) or not isinstance(end, str):
        return None
    try:
        seconds = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    except (ValueError, TypeError):
        return None
    return seconds if seconds >= 0 else None
