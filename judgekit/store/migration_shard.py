"""Migration 0008: runs get ``shard``, the shard of a sharded run that recorded each ("2/4").

Kept out of :mod:`judgekit.store.migrations` (which lists it) only for size; like every
migration it is written against the tables as they were when it was made, and never edited.
Runs stored before it, and runs of unsharded runs, stay NULL.
"""

from __future__ import annotations

from sqlalchemy import Connection


def add_runs_shard(connection: Connection) -> None:
    """A nullable ``shard`` ("I/N") on runs."""
    connection.exec_driver_sql("ALTER TABLE runs ADD COLUMN shard VARCHAR(24)")
