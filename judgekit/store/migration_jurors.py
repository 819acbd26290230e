"""Migration 0006: verdicts get ``jurors``, a jury's verdict's own jurors' verdicts.

Kept out of :mod:`judgekit.store.migrations` (which lists it) only for size; like every
migration it is written against the tables as they were when it was made, and never edited.
Verdicts stored before it, and every one judge's verdict, stay NULL.
"""

from __future__ import annotations

from sqlalchemy import Connection


def add_verdicts_jurors(connection: Connection) -> None:
    """A nullable ``jurors`` (JSON: each juror's model, status, score, reason, tokens and
    cost) on verdicts."""
    # As json_column() declares it: JSON (text) on SQLite, JSONB on PostgreSQL.
    kind = "JSONB" if connection.dialect.name == "postgresql" else "JSON"
    connection.exec_driver_sql(f"ALTER TABLE verdicts ADD COLUMN jurors {kind}")
