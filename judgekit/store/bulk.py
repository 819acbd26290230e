"""Upserting many rows at the driver's speed: SQLAlchemy builds each statement once, and the
rows go to the driver as plain tuples — on SQLite in multi-row ``VALUES`` of the upsert, as many
rows a statement as SQLite's limit on a statement's variables allows; on PostgreSQL ``COPY``
into a temporary table and one ``INSERT … SELECT … ON CONFLICT``.

The result is the same as upserting the rows one chunk after another (what
:meth:`judgekit.store.writes.StoreWrites._upsert` promises): a chunk is free of repeated keys,
so splitting it into statements changes nothing, and no statement holds rows of two chunks;
on PostgreSQL consecutive chunks are merged into one ``INSERT`` only while no key repeats among
them, so no row is upserted over a row of the same call any differently than chunk by chunk.

A multi-row statement, not one a row (``executemany``): a row trigger on the table (the daily
totals' trigger on UPDATE) makes SQLite open a statement journal for every statement.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from itertools import chain
from json.encoder import encode_basestring_ascii
from operator import itemgetter
from typing import Any, Final

from sqlalchemy import JSON, Column, Connection, Dialect, MetaData, Table, select
from sqlalchemy.sql.dml import Insert

from judgekit.store.schema import UtcDateTime

Values = tuple[Any, ...]
Convert = Callable[[Any], Any]

# Rows COPied before the merging INSERT: bounds the rows held in memory.
_SEGMENT: Final = 20_000
# SQLite's own default limit on a statement's variables, for a driver that cannot say its own.
_DEFAULT_VARIABLES: Final = 999


def bulk_columns(table: Table) -> list[str]:
    """The columns a bulk write fills: all but the generated id."""
    return [column.name for column in table.columns if column.name != "id"]


def write_chunks(
    connection: Connection,
    table: Table,
    statement: Insert,
    key: Sequence[str],
    chunks: Iterable[list[dict[str, Any]]],
) -> None:
    """Upsert ``chunks`` of row dicts (each chunk free of repeated keys) with ``statement``."""
    if connection.dialect.name == "postgresql":
        _copy_chunks(connection, table, statement, key, chunks)
    else:
        _execute_chunks(connection, table, statement, chunks)


def _execute_chunks(
    connection: Connection,
    table: Table,
    statement: Insert,
    chunks: Iterable[list[dict[str, Any]]],
) -> None:
    names = bulk_columns(table)
    statements = _multi_row(connection.dialect, table, statement)
    constants = statements.constants
    per_statement = max(1, (_variable_limit(connection) - len(constants)) // len(names))
    values = _row_values(table, names, _sqlite_converter)
    for chunk in chunks:
        for start in range(0, len(chunk), per_statement):
            rows = [values(row) for row in chunk[start : start + per_statement]]
            parameters = (*chain.from_iterable(rows), *constants)
            connection.exec_driver_sql(statements.of(len(rows)), parameters)


def _variable_limit(connection: Connection) -> int:
    """How many variables SQLite takes in one statement, as the connection says where the
    driver can ask (Python 3.11's sqlite3), else SQLite's default."""
    driver = connection.connection.driver_connection
    if isinstance(driver, sqlite3.Connection) and hasattr(driver, "getlimit"):
        return int(driver.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER))
    return _DEFAULT_VARIABLES


@lru_cache(maxsize=16)
def _multi_row(dialect: Dialect, table: Table, statement: Insert) -> _MultiRow:
    """``statement`` compiled once a process, not at every call (a judge records its verdicts
    fifty a call): the store's statements are made once (:mod:`judgekit.store.statements`)."""
    sql, constants = _compiled(dialect, table, statement)
    return _MultiRow(sql, len(bulk_columns(table)), constants)


class _MultiRow:
    """An INSERT's SQL with n rows of placeholders, made once for each n; the statement's
    own constants (an upsert's WHERE) follow the rows' values."""

    def __init__(self, sql: str, width: int, constants: Values) -> None:
        row = f"({', '.join('?' * width)})"
        head, found, tail = sql.partition(f" VALUES {row}")
        if not found or row in tail:
            raise AssertionError(f"unexpected INSERT: {sql}")
        self._head, self._row, self._tail = head, row, tail
        self._made: dict[int, str] = {}
        self.constants = constants

    def of(self, rows: int) -> str:
        if rows not in self._made:
            self._made[rows] = f"{self._head} VALUES {', '.join([self._row] * rows)}{self._tail}"
        return self._made[rows]


def _compiled(dialect: Dialect, table: Table, statement: Insert) -> tuple[str, Values]:
    """``statement`` compiled for the driver: its SQL, taking the values of
    :func:`bulk_columns` in order, then the statement's own constants (an upsert's WHERE)."""
    names = bulk_columns(table)
    compiled = statement.compile(dialect=dialect, column_keys=names)
    order = list(compiled.positiontup or ())
    if order[: len(names)] != names:
        raise AssertionError(f"unexpected parameter order for {table.name}: {order}")
    return compiled.string, tuple(compiled.params[name] for name in order[len(names) :])


def _copy_chunks(
    connection: Connection,
    table: Table,
    statement: Insert,
    key: Sequence[str],
    chunks: Iterable[list[dict[str, Any]]],
) -> None:
    names = bulk_columns(table)
    staging = _staging_table(connection, table, names)
    merge = statement.from_select(names, select(*staging.c))
    values = _row_values(table, names, _postgres_converter)
    segment: list[Values] = []
    keys: set[Any] = set()
    key_of = itemgetter(*key)
    for chunk in chunks:
        chunk_keys = {key_of(row) for row in chunk}
        if segment and (len(segment) >= _SEGMENT or not keys.isdisjoint(chunk_keys)):
            _copy_and_merge(connection, staging, names, segment, merge)
            segment, keys = [], set()
        segment.extend(values(row) for row in chunk)
        keys |= chunk_keys
    if segment:
        _copy_and_merge(connection, staging, names, segment, merge)


def _staging_table(connection: Connection, table: Table, names: list[str]) -> Table:
    """A temporary table of ``table``'s columns (types only), dropped at commit."""
    name = f"judgekit_copy_{table.name}"
    listed = ", ".join(names)
    connection.exec_driver_sql(f"DROP TABLE IF EXISTS {name}")
    connection.exec_driver_sql(
        f"CREATE TEMPORARY TABLE {name} ON COMMIT DROP AS "
        f"SELECT {listed} FROM {table.name} WITH NO DATA"
    )
    return Table(name, MetaData(), *(Column(n, table.c[n].type) for n in names))


def _copy_and_merge(
    connection: Connection, staging: Table, names: list[str], rows: list[Values], merge: Insert
) -> None:
    driver = connection.connection.driver_connection
    assert driver is not None
    columns = ", ".join(names)
    with (
        driver.cursor() as cursor,
        cursor.copy(f"COPY {staging.name} ({columns}) FROM STDIN") as copy,
    ):
        for row in rows:
            copy.write_row(row)
    connection.execute(merge)
    connection.exec_driver_sql(f"TRUNCATE {staging.name}")


def _row_values(
    table: Table, names: list[str], pick: Callable[[Column[Any]], Convert | None]
) -> Callable[[dict[str, Any]], Values]:
    """A function turning a row dict into the tuple of ``names``' values, each converted as
    ``pick`` says for its column (most columns go as they are)."""
    get = itemgetter(*names)
    converted = [
        (index, convert)
        for index, name in enumerate(names)
        if (convert := pick(table.c[name])) is not None
    ]

    def values(row: dict[str, Any]) -> Values:
        items = list(get(row))
        for index, convert in converted:
            items[index] = convert(items[index])
        return tuple(items)

    return values


def _sqlite_converter(column: Column[Any]) -> Convert | None:
    """What SQLAlchemy's bind processing does to the column's value on SQLite."""
    if isinstance(column.type, UtcDateTime):
        return utc_text
    if _is_json_type(column):
        return json_text
    return None


def _postgres_converter(column: Column[Any]) -> Convert | None:
    """The column's value as COPY's text format takes it on PostgreSQL."""
    if isinstance(column.type, UtcDateTime):
        return utc
    if _is_json_type(column):
        return json_text
    return None


def _is_json_type(column: Column[Any]) -> bool:
    return isinstance(column.type, JSON)


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
