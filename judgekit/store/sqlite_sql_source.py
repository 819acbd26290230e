"""Renders :mod:`judgekit.store.sqlite_sql` from the store's SQLAlchemy tables and statements,
so the SQLite recorder runs exactly the SQL the full store would, without importing SQLAlchemy.

Run ``python -m judgekit.store.sqlite_sql_source`` (then ``ruff format``) after changing the
tables, the migrations or the upserts; a test fails while the file's values differ from these.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, Final

from sqlalchemy import JSON, Column, Table, select
from sqlalchemy.dialects import sqlite
from sqlalchemy.sql.dml import Insert

from judgekit.store import schema
from judgekit.store.bulk import bulk_columns
from judgekit.store.migrations import MIGRATIONS
from judgekit.store.sqlite_values import Statement
from judgekit.store.statements import insert_ignoring, upsert, verdict_upsert

TARGET: Final = Path(__file__).with_name("sqlite_sql.py")

_HEADER: Final = '''"""The SQL the store's SQLite recorder runs, rendered from the store's SQLAlchemy tables and
statements by :mod:`judgekit.store.sqlite_sql_source` (do not edit: run
``python -m judgekit.store.sqlite_sql_source``; a test keeps its values equal to the store's).
"""

from __future__ import annotations

from typing import Final

from judgekit.store.sqlite_values import Statement
'''


def rendered_values() -> dict[str, object]:
    """Each constant of :mod:`judgekit.store.sqlite_sql`, as the store's SQLAlchemy code
    gives it now."""
    dialect = sqlite.dialect()
    batch_id = select(schema.batches.c.id).where(schema.batches.c.batch_key == "")
    batches = insert_ignoring(schema.batches, ["batch_key"], "sqlite")
    return {
        "MIGRATIONS": tuple(name for name, _ in MIGRATIONS),
        "MIGRATIONS_TABLE": schema.migrations.name,
        "BATCH_ID_BY_KEY": str(batch_id.compile(dialect=dialect)),
        "RUN_KEY": schema.RUN_KEY,
        "GRADE_KEY": schema.GRADE_KEY,
        "VERDICT_KEY": schema.VERDICT_KEY,
        "BATCH_INSERT": _statement(schema.batches, batches),
        "RUN_UPSERT": _statement(schema.runs, upsert(schema.runs, schema.RUN_KEY, "sqlite")),
        **_new_store(),
        "GRADE_UPSERT": _statement(
            schema.grades, upsert(schema.grades, schema.GRADE_KEY, "sqlite")
        ),
        "VERDICT_UPSERT": _statement(schema.verdicts, verdict_upsert("sqlite")),
    }


def render() -> str:
    """The text of :mod:`judgekit.store.sqlite_sql` (before ``ruff format``)."""
    lines = [f"{name}: Final = {value!r}" for name, value in rendered_values().items()]
    return _HEADER + "\n" + "\n".join(lines) + "\n"


def _new_store() -> dict[str, object]:
    """What the migrations leave in a new SQLite store: its schema (tables, then indexes, then
    triggers, each by name: SQLAlchemy makes a table's indexes in no fixed order) and the
    rows of every table but ``migrations``."""
    from judgekit.store import open_store

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "new.sqlite"
        open_store(f"sqlite:///{path}").close()
        with closing(sqlite3.connect(path)) as connection:
            schema_sql = connection.execute(
                "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite%' "
                "ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, name"
            ).fetchall()
            tables = connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' "
                "ORDER BY rowid"
            ).fetchall()
            rows = []
            for (table,) in tables:
                found = connection.execute(f'SELECT * FROM "{table}"')
                columns = tuple(column[0] for column in found.description)
                values = tuple(found.fetchall())
                if values and table != schema.migrations.name:
                    rows.append((table, columns, values))
    return {"NEW_STORE_SCHEMA": tuple(sql for (sql,) in schema_sql), "NEW_STORE_ROWS": tuple(rows)}


def _statement(table: Table, statement: Insert) -> Statement:
    names = bulk_columns(table)
    compiled = statement.compile(dialect=sqlite.dialect(), column_keys=names)
    order = list(compiled.positiontup or ())
    if order[: len(names)] != names:
        raise AssertionError(f"unexpected parameter order for {table.name}: {order}")
    return Statement(
        sql=compiled.string,
        columns=tuple(names),
        constants=tuple(compiled.params[key] for key in order[len(names) :]),
        time_columns=_columns_of(table, names, lambda c: isinstance(c.type, schema.UtcDateTime)),
        json_columns=_columns_of(table, names, lambda c: isinstance(c.type, JSON)),
    )


def _columns_of(
    table: Table, names: Sequence[str], test: Callable[[Column[Any]], bool]
) -> tuple[str, ...]:
    return tuple(name for name in names if test(table.c[name]))


if __name__ == "__main__":
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET}; now run: ruff format {TARGET}")
