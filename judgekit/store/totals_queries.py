"""The verdicts' daily totals as the monitor and the gate read them: the rows of
``verdict_day_totals``, plus — on SQLite — the verdicts a writer has not folded in yet, each
as its own one-verdict totals (see :mod:`judgekit.store.migration_day_totals`).

A query reads the totals only where they give exactly what the verdicts give: not for a
``--suite`` filter (a suite is a property of each run, not of a day), and not when a total
counted an inexact score (the caller sees ``inexact`` and asks the verdicts instead). Per
batch since a moment, the totals know a verdict's day but not its time: the days after the
moment's come from the totals, the moment's own day from its verdicts.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, Subquery, and_, case, func, literal, not_, select, union_all
from sqlalchemy.sql.elements import ColumnElement

from judgekit.store import schema
from judgekit.store.run_filter import RunFilter

# Whole numbers this small keep every sum of squares exact in a double.
_EXACT_LIMIT = 1000


def reads_totals(only: RunFilter) -> bool:
    """Whether a query of this scope can read the totals."""
    return only.suite is None


def verdict_totals(dialect_name: str, *, since: datetime | None = None) -> Subquery:
    """Rows of the totals' columns whose sums per key are the verdicts' figures (with
    ``since``, of the verdicts given at or after it: the totals of the days after its day,
    and the verdicts of its day themselves)."""
    totals = schema.verdict_day_totals
    verdicts = schema.verdicts
    stored = select(*totals.c)
    parts = []
    unfolded: list[ColumnElement[bool]] = []
    if since is not None:
        # Its UTC day, a naive time taken as UTC (as the `at >= since` below takes it).
        moment = since.replace(tzinfo=UTC) if since.tzinfo is None else since.astimezone(UTC)
        day = moment.date().isoformat()
        stored = stored.where(totals.c.day > day)
        parts.append(_one_verdict_each([verdicts.c.day == day, verdicts.c.at >= since]))
        unfolded.append(verdicts.c.day > day)
    parts.insert(0, stored)
    if dialect_name != "postgresql":  # PostgreSQL's triggers count every verdict as written
        mark = select(schema.verdict_day_totals_mark.c.verdict_id).scalar_subquery()
        parts.append(_one_verdict_each([verdicts.c.id > mark, *unfolded]))
    return union_all(*parts).subquery("verdict_totals")


def _one_verdict_each(where: list[ColumnElement[bool]]) -> Select[Any]:
    """The verdicts ``where`` holds, each as the totals of one verdict."""
    verdicts = schema.verdicts
    value, status = verdicts.c.score_value, verdicts.c.status
    exact = and_(value == func.round(value), func.abs(value) <= _EXACT_LIMIT)

    def flag(condition: Any) -> Any:
        return case((condition, 1), else_=0)

    # Materialized: read by id or time alone, where the planner would rather walk a rubric
    # index for the conditions the caller adds outside.
    rows = (
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
        .where(*where)
        .cte()
        .prefix_with("MATERIALIZED")
    )
    return select(*rows.c)
