"""Upserting many rows at the driver's speed: SQLAlchemy builds each statement once, and the
rows go to the driver as plain tuples — ``executemany`` on SQLite, ``COPY`` into a temporary
table and one ``INSERT … SELECT … ON CONFLICT`` on PostgreSQL.

The result is the same as upserting the rows one chunk after another (what
:meth:`judgekit.store.writes.StoreWrites._upsert` promises): on PostgreSQL consecutive chunks
are merged into one ``INSERT`` only while no key repeats among them, so no row is upserted
over a row of the same call any differently than chunk by chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import Any, Final

from sqlalchemy import JSON, Column, Connection, MetaData, Table, select
from sqlalchemy.sql.dml import Insert

from judgekit.store.schema import UtcDateTime
from judgekit.store.sqlite_values import json_text, utc, utc_text

Values = tuple[Any, ...]
Convert = Callable[[Any], Any]

# Rows COPied before the merging INSERT: bounds the rows held in memory.
_SEGMENT: Final = 20_000


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
    sql, constants = prepared(connection, table, statement)
    values = _row_values(table, names, _sqlite_converter)
    for chunk in chunks:
        rows = [values(row) + constants for row in chunk]
        connection.exec_driver_sql(sql, rows)


def prepared(connection: Connection, table: Table, statement: Insert) -> tuple[str, Values]:
    """``statement`` compiled once for the driver: its SQL, taking the values of
    :func:`bulk_columns` in order, then the statement's own constants (an upsert's WHERE)."""
    names = bulk_columns(table)
    compiled = statement.compile(dialect=connection.dialect, column_keys=names)
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
