"""Row values as SQLite holds them when SQLAlchemy is not there to bind them: a point in time
as :class:`judgekit.store.schema.UtcDateTime`'s fixed-width ISO text, a JSON column as JSON
text (Python None as SQL NULL), every other value as it is."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from json.encoder import encode_basestring_ascii
from operator import itemgetter
from typing import Any

Values = tuple[Any, ...]


@dataclass(frozen=True)
class Statement:
    """One rendered statement: its SQL, the row columns its parameters take in order, the
    statement's own constants after them, and which columns need converting."""

    sql: str
    columns: tuple[str, ...]
    constants: tuple[Any, ...]
    time_columns: tuple[str, ...]
    json_columns: tuple[str, ...]

    def row_values(self) -> Callable[[dict[str, Any]], Values]:
        """A function turning a row dict into this statement's parameters."""
        get = itemgetter(*self.columns)
        converted = [
            (index, utc_text if name in self.time_columns else json_text)
            for index, name in enumerate(self.columns)
            if name in self.time_columns or name in self.json_columns
        ]
        constants = self.constants

        def values(row: dict[str, Any]) -> Values:
            items = list(get(row))
            for index, convert in converted:
                items[index] = convert(items[index])
            return (*items, *constants)

        return values


def utc(value: datetime | None) -> datetime | None:
    """``value`` in UTC; a naive datetime is taken to be UTC already."""
    if value is None or value.tzinfo is UTC:
        return value
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utc_text(value: datetime | None) -> str | None:
    """:class:`judgekit.store.schema.UtcDateTime`'s text on SQLite."""
    moment = utc(value)
    return None if moment is None else moment.isoformat(timespec="microseconds")


def json_text(value: Any) -> str | None:
    """A JSON column's text (Python None is SQL NULL, as ``none_as_null`` says)."""
    if value is None:
        return None
    if type(value) is str:
        return encode_basestring_ascii(value)  # what json.dumps does for a str, sooner
    return json.dumps(value)
