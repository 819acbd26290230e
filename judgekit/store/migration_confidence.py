"""Migration 0004: verdicts get ``confidence``, the judge's confidence in its verdict.

Kept out of :mod:`judgekit.store.migrations` (which lists it) only for size; like every
migration it is written against the tables as they were when it was made, and never edited.
Verdicts stored before it stay NULL: their confidence was not measured.
"""

from __future__ import annotations

from sqlalchemy import Connection


def add_verdicts_confidence(connection: Connection) -> None:
    """A nullable ``confidence`` (a share in [0, 1]) on verdicts."""
    # FLOAT is a double precision on both backends (SQLite's REAL, PostgreSQL's float8).
    connection.exec_driver_sql("ALTER TABLE verdicts ADD COLUMN confidence FLOAT")
