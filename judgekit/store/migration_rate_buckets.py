"""Migration 0009: ``rate_buckets``, the ``--rpm`` and ``--tpm`` buckets every judgekit
process using one store shares (``--share-rate-limits`` with a PostgreSQL store).

One row per bucket (``key``: a digest of the endpoint and what is limited): what it holds
(``level``, negative in debt) as of ``at`` (Unix time on the database's clock), read and
written under a lock (see :mod:`judgekit.store.rate_buckets`). Kept out of
:mod:`judgekit.store.migrations` for size; like every migration it is written against the
tables as they were, and never edited.
"""

from __future__ import annotations

from sqlalchemy import Connection


def add_rate_buckets(connection: Connection) -> None:
    """The table, empty: a bucket starts full when first asked."""
    connection.exec_driver_sql(
        "CREATE TABLE rate_buckets (key VARCHAR(64) NOT NULL, level FLOAT NOT NULL, "
        "at FLOAT NOT NULL, CONSTRAINT pk_rate_buckets PRIMARY KEY (key))"
    )
