"""Where a value sits in a transcript file, and checks of JSON values that say where.

A :class:`Location` names the file, the line when known and a field path; the helpers
check a value's JSON type and raise a :class:`judgekit.errors.DataError` naming that place.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judgekit.errors import DataError


@dataclass(frozen=True)
class Location:
    """A place in a transcript file: the file, the line when known, and a field path.

    >>> Location(Path("t.jsonl"), 3).key("messages").item(2).key("role").error("bad").args[0]
    't.jsonl:3: messages[2].role: bad'
    """

    path: Path
    line: int | None = None
    field: str = ""

    def key(self, name: str) -> Location:
        return replace(self, field=f"{self.field}.{name}" if self.field else name)

    def item(self, index: int) -> Location:
        return replace(self, field=f"{self.field}[{index}]")

    def error(self, message: str) -> DataError:
        return DataError(message, path=self.path, line=self.line, field=self.field or None)


def describe_json(value: Any) -> str:
    """A short phrase naming a JSON value, for "expected …, got …" messages.

    >>> describe_json([1]), describe_json("abc"), describe_json(None)
    ('a list', "the string 'abc'", 'null')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:40] + "…"
        return f"the string {shown!r}"
    return "a list" if isinstance(value, list) else "an object"


def as_object(value: Any, where: Location, what: str = "an object") -> dict[str, Any]:
    """``value`` when it is a JSON object, else a DataError saying what was expected."""
    if not isinstance(value, dict):
        raise where.error(f"expected {what}, got {describe_json(value)}")
    return value


def optional_string(obj: dict[str, Any], key: str, where: Location) -> str | None:
    """``obj[key]`` when it is a string, None when absent or null, else a DataError."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise where.key(key).error(f"expected a string, got {describe_json(value)}")


def required_string(obj: dict[str, Any], key: str, where: Location) -> str:
    """``obj[key]``, which must be present and a string."""
    value = optional_string(obj, key, where)
    if value is None:
        raise where.key(key).error("required field is missing (expected a string)")
    return value


def optional_flag(obj: dict[str, Any], key: str, where: Location) -> bool | None:
    """``obj[key]`` when it is true or false, None when absent or null, else a DataError."""
    value = obj.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise where.key(key).error(f"expected true or false, got {describe_json(value)}")
