"""The store's INSERT statements that know ``ON CONFLICT``, in each dialect's own syntax:
every write is an upsert or an insert that ignores what is already there. The upserts are
made once a process, so the bulk writes compile each once (:mod:`judgekit.store.bulk`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert

from judgekit.errors import StoreError
from judgekit.store import schema
from judgekit.store.engine import SUPPORTED_BACKENDS


@cache
def upsert(table: Table, key: tuple[str, ...], dialect_name: str) -> Insert:
    """``INSERT … ON CONFLICT (key) DO UPDATE`` replacing every other column, in the
    dialect's own syntax."""
    replaced = [c.name for c in table.columns if c.name != "id" and c.name not in key]
    statement = dialect_insert(table, dialect_name)
    return statement.on_conflict_do_update(
        index_elements=list(key), set_={name: statement.excluded[name] for name in replaced}
    )


@cache
def verdict_upsert(dialect_name: str) -> Insert:
    """The upsert :meth:`Store.record_verdicts` writes with: a later verdict replaces the
    stored one, except that an unscored verdict never replaces a scored one (a judge that
    answered off the scale this time does not erase the verdict it gave before), nor an
    abstained one, which holds a score too; an abstained verdict replaces a scored one."""
    table = schema.verdicts
    replaced = [
        c.name for c in table.columns if c.name != "id" and c.name not in schema.VERDICT_KEY
    ]
    statement = dialect_insert(table, dialect_name)
    return statement.on_conflict_do_update(
        index_elements=list(schema.VERDICT_KEY),
        set_={name: statement.excluded[name] for name in replaced},
        where=(statement.excluded.status != "unscored") | (table.c.status == "unscored"),
    )


def insert_ignoring(table: Table, key: Sequence[str], dialect_name: str) -> Insert:
    """``INSERT … ON CONFLICT (key) DO NOTHING``: safe when two processes insert at once."""
    return dialect_insert(table, dialect_name).on_conflict_do_nothing(index_elements=list(key))


def dialect_insert(table: Table, dialect_name: str) -> sqlite.Insert | postgresql.Insert:
    """The dialect's own INSERT, the one that knows ``ON CONFLICT``."""
    if dialect_name == "sqlite":
        return sqlite.insert(table)
    if dialect_name == "postgresql":
        return postgresql.insert(table)
    raise StoreError(f"the store supports {' and '.join(SUPPORTED_BACKENDS)}, not {dialect_name}")
