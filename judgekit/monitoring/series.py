"""Metric series from the store: one point per day or per batch, aggregated in SQL.

Grades give the deterministic metrics (pass rate, Truth, Path, State as proportions; cost
and turns per run as means); verdicts give one series per rubric (binary rubrics as the
share of passes, Likert rubrics as the mean score). Only sums and counts leave the
database, so a window of a million verdicts costs one indexed scan, not a million rows
in Python.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import Float, Integer, Select, cast, func, select
from sqlalchemy.sql.elements import ColumnElement

from judgekit.monitoring.model import MetricKind, MetricRole, Point, Series, TaskDrop
from judgekit.monitoring.points import mean_point, proportion_point
from judgekit.store import Store, schema
from judgekit.store.database import store_errors

Window = Literal["day", "batch"]


# (metric, title, grade column or None for the overall pass); a None value is "not checked".
_PROPORTIONS: tuple[tuple[str, str, str], ...] = (
    ("pass_rate", "pass rate", "passed"),
    ("truth", "Truth (right tools and arguments)", "truth_passed"),
    ("path", "Path (no loops, duplicates, within budget)", "path_passed"),
    ("state", "State (the world ended right)", "state_passed"),
)
_MEANS: tuple[tuple[str, str, str], ...] = (
    ("cost_usd", "cost per run (USD)", "cost_usd"),
    ("turns", "turns per run", "turns"),
)


@dataclass(frozen=True)
class RubricScope:
    """Which verdicts make a rubric's series, and how it is read."""

    rubric_id: str
    title: str
    kind: MetricKind | None  # proportion: binary; mean: Likert; None: read it off the scores
    role: MetricRole
    rubric_version: str | None = None  # None: every version (informational use)
    model: str | None = None
    note: str | None = None


def grade_series(store: Store, *, since: datetime | None, by: Window) -> list[Series]:
    """Pass rate, Truth, Path and State (proportions), cost and turns per run (means)."""
    table = schema.grades
    columns: list[ColumnElement[Any]] = []
    for _, _, name in _PROPORTIONS:
        column = table.c[name]
        columns += [func.count(column), func.sum(cast(column, Integer))]
    for _, _, name in _MEANS:
        value = cast(table.c[name], Float)
        columns += [func.count(value), func.sum(value), func.sum(value * value)]
    rows = _grouped(store, table, columns, since=since, by=by)
    series: list[Series] = []
    for offset, (metric, title, _) in enumerate(_PROPORTIONS):
        points = [
            proportion_point(label, at, row[2 * offset], row[2 * offset + 1])
            for label, at, row in rows
        ]
        series.append(Series(metric, title, "proportion", "gating", _present(points)))
    base = 2 * len(_PROPORTIONS)
    for offset, (metric, title, _) in enumerate(_MEANS):
        first = base + 3 * offset
        points = [
            mean_point(label, at, row[first], row[first + 1], row[first + 2])
            for label, at, row in rows
        ]
        series.append(Series(metric, title, "mean", "gating", _present(points)))
    return series


GRADE_COLUMNS = {metric: column for metric, _, column in _PROPORTIONS}


def task_drops(
    store: Store, metric: str, *, baseline: Sequence[str], latest: str, by: Window
) -> list[TaskDrop]:
    """Per task, a grade metric's successes in the baseline windows and in the latest one
    (windows by their labels: days, or "batch N"), the largest falls first."""
    table = schema.grades
    column = table.c[GRADE_COLUMNS[metric]]
    key = table.c.day if by == "day" else table.c.batch_id

    def window(label: str) -> str | int:
        return label if by == "day" else int(label.removeprefix("batch "))

    # Grouped by the window itself, folded here: PostgreSQL would not match a grouped
    # comparison against a bound parameter with the same comparison in the select list.
    labels = [*baseline, latest]
    query = (
        select(table.c.task_id, key, func.count(column), func.sum(cast(column, Integer)))
        .where(key.in_([window(label) for label in labels]))
        .group_by(table.c.task_id, key)
    )
    counts: dict[str, dict[bool, tuple[int, int]]] = {}
    with store_errors(store.engine.url), store.engine.connect() as connection:
        for task_id, at, n, successes in connection.execute(query):
            sides = counts.setdefault(task_id, {})
            side = at == window(latest)
            before_n, before_s = sides.get(side, (0, 0))
            sides[side] = (before_n + int(n or 0), before_s + int(successes or 0))
    drops = []
    for task_id, sides in counts.items():
        (base_n, base_s), (last_n, last_s) = sides.get(False, (0, 0)), sides.get(True, (0, 0))
        if base_n and last_n:
            drop = TaskDrop(task_id, base_n, base_s, last_n, last_s)
            if drop.change < 0:
                drops.append(drop)
    return sorted(drops, key=lambda d: (d.change, d.task_id))


def rubric_series(
    store: Store, scope: RubricScope, *, since: datetime | None, by: Window
) -> Series:
    """A rubric's scored verdicts per window: the pass share (binary) or mean (Likert)."""
    table = schema.verdicts
    value = table.c.score_value
    conditions = [table.c.rubric_id == scope.rubric_id, value.is_not(None)]
    if scope.rubric_version is not None:
        conditions.append(table.c.rubric_version == scope.rubric_version)
    if scope.model is not None:
        conditions.append(table.c.model == scope.model)
    columns = [func.count(value), func.sum(value), func.sum(value * value)]
    rows = _grouped(store, table, columns, since=since, by=by, where=conditions)
    kind = scope.kind or _kind_of_scores(rows)
    if kind == "proportion":
        points = [proportion_point(label, at, row[0], row[1]) for label, at, row in rows]
    else:
        points = [mean_point(label, at, row[0], row[1], row[2]) for label, at, row in rows]
    metric = f"rubric:{scope.rubric_id}"
    return Series(metric, scope.title, kind, scope.role, points, note=scope.note)


def _kind_of_scores(rows: Sequence[tuple[str, datetime, tuple[Any, ...]]]) -> MetricKind:
    """Scores that are all 0 or 1 are a pass share, anything else a mean: x² = x holds for
    0 and 1 only, so the sums already tell, with no second pass over the verdicts."""
    for _, _, (_, total, squares) in rows:
        if not math.isclose(float(total or 0), float(squares or 0), abs_tol=1e-9):
            return "mean"
    return "proportion"


def stored_rubric_ids(store: Store, *, since: datetime | None) -> list[str]:
    """Every rubric with verdicts in the store (since ``since``'s day), sorted."""
    table = schema.verdicts
    query = select(table.c.rubric_id).distinct().order_by(table.c.rubric_id)
    if since is not None:
        query = query.where(table.c.day >= since.astimezone(UTC).date().isoformat())
    with store_errors(store.engine.url), store.engine.connect() as connection:
        return [row[0] for row in connection.execute(query)]


def _grouped(
    store: Store,
    table: Any,
    aggregates: Sequence[ColumnElement[Any]],
    *,
    since: datetime | None,
    by: Window,
    where: Sequence[ColumnElement[bool]] = (),
) -> list[tuple[str, datetime, tuple[Any, ...]]]:
    """``(label, start, aggregates)`` per window, oldest first."""
    query: Select[Any]
    if by == "day":
        day = table.c.day
        query = select(day, *aggregates).group_by(day).order_by(day)
        if since is not None:
            # Whole days: a window is a day, so the first one shown is complete.
            query = query.where(day >= since.astimezone(UTC).date().isoformat())
    else:
        batches = schema.batches
        query = (
            select(table.c.batch_id, func.min(batches.c.created_at), *aggregates)
            .join(batches, batches.c.id == table.c.batch_id)
            .group_by(table.c.batch_id)
            .order_by(func.min(batches.c.created_at), table.c.batch_id)
        )
        if since is not None:
            query = query.where(table.c.at >= since)
    for condition in where:
        query = query.where(condition)
    with store_errors(store.engine.url), store.engine.connect() as connection:
        result = connection.execute(query).all()
    windows = []
    for row in result:
        if by == "day":
            key, values = row[0], tuple(row[1:])
            label, moment = str(key), datetime.fromisoformat(str(key)).replace(tzinfo=UTC)
        else:
            key, start, values = row[0], row[1], tuple(row[2:])
            label, moment = f"batch {key}", _moment(start)
        windows.append((label, moment, values))
    return windows


def _moment(value: Any) -> datetime:
    """``min(at)`` comes back as the column's type on PostgreSQL, as its text on SQLite."""
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.fromisoformat(str(value)).astimezone(UTC)


def _present(points: list[Point]) -> list[Point]:
    """Drop the leading and trailing windows where a metric was not measured at all (e.g.
    State before any task had an expected state); gaps inside stay, as n = 0 points."""
    measured = [i for i, point in enumerate(points) if point.n > 0]
    if not measured:
        return []
    return points[measured[0] : measured[-1] + 1]
