"""The verdicts' daily totals as the monitor and the gate read them: the rows of
``verdict_day_totals``, plus — on SQLite — the verdicts a writer has not folded in yet, each
as its own one-verdict totals (see :mod:`judgekit.store.migration_day_totals`).

A query reads the totals only where they give exactly what the verdicts give: not for a
``--suite`` filter (a suite is a property of each run, not of a day), not per batch since a
moment (the totals know a verdict's day, not its time), and not when a total counted an
inexact score (the caller sees ``inexact`` and asks the verdicts instead).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Subquery, and_, case, func, literal, not_, select, union_all

from judgekit.store import schema
from judgekit.store.run_filter import RunFilter

# Whole numbers this small keep every sum of squares exact in a double.
_EXACT_LIMIT = 1000


def reads_totals(only: RunFilter, *, by: str = "day", since: datetime | None = None) -> bool:
    """Whether a query of these scope and windows can read the totals."""
    return only.suite is None and (by == "day" or since is None)


def verdict_totals(dialect_name: str) -> Subquery:
    """Rows of the totals' columns whose sums per key are the verdicts' figures."""
    totals = schema.verdict_day_totals
    stored = select(*totals.c)
    if dialect_name == "postgresql":  # its triggers count every verdict as it is written
        return stored.subquery("verdict_totals")
    verdicts = schema.verdicts
    value, status = verdicts.c.score_value, verdicts.c.status
    mark = select(schema.verdict_day_totals_mark.c.verdict_id).scalar_subquery()
    exact = and_(value == func.round(value), func.abs(value) <= _EXACT_LIMIT)

    def flag(condition: Any) -> Any:
        return case((condition, 1), else_=0)

    # Materialized: read by id alone, where the planner would rather walk a rubric index.
    unfolded = (
        select(
            verdicts.c.rubric_id,
            verdicts.c.rubric_version,
            verdicts.c.model,
            verdicts.c.day,
            verdicts.c.batch_id,
            literal(1).label("verdicts"),
            flag(value.is_not(None)).label("scores"),
            func.coalesce(value, 0.0).label("score_sum"),
            func.coalesce(value * value, 0.0).label("score_squares"),
            flag(and_(value.is_not(None), not_(exact))).label("inexact"),
            flag(status.in_(("scored", "abstained"))).label("judged"),
            flag(status == "scored").label("kept"),
        )
        .where(verdicts.c.id > mark)
        .cte("unfolded_verdicts")
        .prefix_with("MATERIALIZED")
    )
    return union_all(stored, select(*unfolded.c)).subquery("verdict_totals")
