"""Migration 0006: ``judge_spend_days``, what judges spent per UTC day (``--max-cost-per-day``).

One row per UTC day: ``spent_usd`` the settled cost of the requests answered that day, and
``reserved_usd`` what requests in flight may still cost. Every judge recording into the same
store reads and writes the row under a lock, so two at once never pass the day's cap
together (see :mod:`judgekit.store.day_spend`). Kept out of :mod:`judgekit.store.migrations`
for size; like every migration it is written against the tables as they were, and never
edited.
"""

from __future__ import annotations

from sqlalchemy import Connection


def add_judge_spend_days(connection: Connection) -> None:
    """The table, empty: nothing was spent under a daily cap before it."""
    connection.exec_driver_sql(
        "CREATE TABLE judge_spend_days (day VARCHAR(10) NOT NULL, spent_usd FLOAT NOT NULL, "
        "reserved_usd FLOAT NOT NULL, CONSTRAINT pk_judge_spend_days PRIMARY KEY (day))"
    )
