"""The store's reads for reports, the monitor and the gate: sums and counts aggregated in SQL,
the newest of something, and the verdicts another batch already holds.

Only sums and counts leave the database, so a window of a million verdicts costs one indexed
scan, not a million rows in Python. Every function takes a :class:`Store` and returns plain
data.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from sqlalchemy import Float, Integer, Select, Subquery, Table, case, cast, func, select
from sqlalchemy.sql.elements import ColumnElement

from judgekit.store import schema
from judgekit.store.batches import Batch
from judgekit.store.engine import reading
from judgekit.store.filter_sql import row_conditions
from judgekit.store.reads import IDS_PER_QUERY
from judgekit.store.run_filter import EVERYTHING, RunFilter
from judgekit.store.store import Store
from judgekit.store.totals_queries import reads_totals, verdict_totals

Grouping = Literal["day", "batch"]

# What makes a verdict the same judgement wherever it is stored: run, rubric, version, model
# and the time it was given (in UTC).
VerdictIdentity = tuple[str, str, str, str, datetime]


class WindowSums(NamedTuple):
    """One window's aggregates: its label ("2026-11-29" or "batch 7"), its start, the values."""

    label: str
    start: datetime
    values: tuple[Any, ...]


def grade_sums(
    store: Store,
    *,
    proportions: Sequence[str],
    means: Sequence[str],
    since: datetime | None,
    by: Grouping,
    only: RunFilter = EVERYTHING,
) -> list[WindowSums]:
    """Per window, oldest first: for each of the ``proportions`` (boolean grade columns) how
    many grades hold a value and how many are true, then for each of the ``means`` (numeric
    columns) the count, sum and sum of squares of its values."""
    table = schema.grades
    columns: list[ColumnElement[Any]] = []
    for name in proportions:
        column = table.c[name]
        columns += [func.count(column), func.sum(cast(column, Integer))]
    for name in means:
        value = cast(table.c[name], Float)
        columns += [func.count(value), func.sum(value), func.sum(value * value)]
    return _grouped(store, table, columns, since=since, by=by, where=row_conditions(table, only))


def verdict_score_sums(
    store: Store,
    rubric_id: str,
    *,
    rubric_version: str | None,
    model: str | None,
    since: datetime | None,
    by: Grouping,
    only: RunFilter = EVERYTHING,
) -> list[WindowSums]:
    """Per window, oldest first: the count, sum and sum of squares of a rubric's numeric
    scores (optionally of one rubric version and judge model)."""
    if reads_totals(only):
        source = _totals_since(store, since, by)
        scores = func.sum(source.c.scores)
        sums: list[ColumnElement[Any]] = [
            scores,
            func.sum(source.c.score_sum),
            func.sum(source.c.score_squares),
        ]
        conditions = _rubric_scope(source, rubric_id, rubric_version, model)
        found = _exact(
            _grouped(
                store,
                source,
                [*sums, func.sum(source.c.inexact)],
                since=since if by == "day" else None,
                by=by,
                where=conditions + row_conditions(source, only),
                having=scores > 0,
            )
        )
        if found is not None:
            return found
    table = schema.verdicts
    value = table.c.score_value
    conditions = [*_rubric_scope(table, rubric_id, rubric_version, model), value.is_not(None)]
    conditions += row_conditions(table, only)
    columns = [func.count(value), func.sum(value), func.sum(value * value)]
    return _grouped(store, table, columns, since=since, by=by, where=conditions)


def _totals_since(store: Store, since: datetime | None, by: Grouping) -> Subquery:
    """The verdicts' totals; per batch, only of the verdicts since ``since`` (per day the
    windows are whole days, which :func:`_grouped` picks)."""
    return verdict_totals(store.engine.dialect.name, since=since if by == "batch" else None)


def _rubric_scope(
    source: Table | Subquery, rubric_id: str, rubric_version: str | None, model: str | None
) -> list[ColumnElement[bool]]:
    """A rubric's rows, of one version and judge model when given."""
    conditions = [source.c.rubric_id == rubric_id]
    if rubric_version is not None:
        conditions.append(source.c.rubric_version == rubric_version)
    if model is not None:
        conditions.append(source.c.model == model)
    return conditions


def _exact(windows: list[WindowSums]) -> list[WindowSums] | None:
    """The windows without their last value, the count of inexact scores; None when some
    window counted one (its sums may differ from the verdicts' in the last digit)."""
    if any(window.values[-1] for window in windows):
        return None
    return [window._replace(values=window.values[:-1]) for window in windows]


def verdict_coverage_counts(
    store: Store,
    rubric_id: str,
    *,
    rubric_version: str | None,
    model: str | None,
    since: datetime | None,
    by: Grouping,
    only: RunFilter = EVERYTHING,
) -> list[WindowSums]:
    """Per window, oldest first: how many of a rubric's verdicts hold a score (scored or
    abstained) and how many of them were kept (scored), for the coverage of a selective judge."""
    if reads_totals(only):
        source = _totals_since(store, since, by)
        judged = func.sum(source.c.judged)
        return _grouped(
            store,
            source,
            [judged, func.sum(source.c.kept)],
            since=since if by == "day" else None,
            by=by,
            where=_rubric_scope(source, rubric_id, rubric_version, model)
            + row_conditions(source, only),
            having=judged > 0,
        )
    table = schema.verdicts
    conditions = _rubric_scope(table, rubric_id, rubric_version, model)
    conditions += [table.c.status.in_(("scored", "abstained")), *row_conditions(table, only)]
    kept = func.sum(case((table.c.status == "scored", 1), else_=0))
    return _grouped(
        store, table, [func.count(table.c.id), kept], since=since, by=by, where=conditions
    )


def task_successes(
    store: Store,
    column: str,
    *,
    windows: Sequence[str | int],
    by: Grouping,
    only: RunFilter = EVERYTHING,
) -> list[tuple[str, str | int, int, int]]:
    """``(task_id, window, n, successes)`` of a boolean grade column, per task and window
    (windows by key: days as ``YYYY-MM-DD``, or batch ids); pairs without grades are absent."""
    table = schema.grades
    value = table.c[column]
    key = table.c.day if by == "day" else table.c.batch_id
    # Grouped by the window itself, for the caller to fold: PostgreSQL would not match a
    # grouped comparison against a bound parameter with the same comparison in the select list.
    query = (
        select(table.c.task_id, key, func.count(value), func.sum(cast(value, Integer)))
        .where(key.in_(list(windows)), *row_conditions(table, only))
        .group_by(table.c.task_id, key)
    )
    with reading(store.engine) as connection:
        return [
            (task_id, window, int(n or 0), int(successes or 0))
            for task_id, window, n, successes in connection.execute(query)
        ]


def stored_rubric_ids(
    store: Store, *, since: datetime | None, only: RunFilter = EVERYTHING
) -> list[str]:
    """Every rubric with verdicts in the store (since ``since``'s day; of the runs ``only``
    lets through), sorted."""
    totals = reads_totals(only)
    source = verdict_totals(store.engine.dialect.name) if totals else schema.verdicts
    conditions = row_conditions(source, only)
    if since is not None:
        conditions.append(source.c.day >= _day(since))
    query = select(source.c.rubric_id).where(*conditions).order_by(source.c.rubric_id)
    if totals:  # a key whose verdicts all moved to another day or rubric keeps a row of 0
        query = query.group_by(source.c.rubric_id).having(func.sum(source.c.verdicts) > 0)
    else:
        query = query.distinct()
    with reading(store.engine) as connection:
        return [row[0] for row in connection.execute(query)]


def _day(moment: datetime) -> str:
    return moment.astimezone(UTC).date().isoformat()


def matching_counts(store: Store, only: RunFilter) -> tuple[int, int]:
    """How many grades and how many verdicts ``only`` lets through (since any time)."""
    counts = []
    with reading(store.engine) as connection:
        for table in (schema.grades, schema.verdicts):
            query = select(func.count()).select_from(table).where(*row_conditions(table, only))
            counts.append(int(connection.execute(query).scalar_one()))
    return counts[0], counts[1]


def scored_verdict_sums(
    store: Store,
    batch_id: int,
    rubric_id: str,
    rubric_version: str,
    model: str,
    *,
    only: RunFilter = EVERYTHING,
) -> tuple[int, float]:
    """How many verdicts of one rubric version and model in one batch (of the runs ``only``
    lets through) are scored with a number, and the sum of those numbers (for a binary
    rubric: its passes)."""
    if reads_totals(only):
        found = _scored_totals(store, batch_id, rubric_id, rubric_version, model, only)
        if found is not None:
            return found
    table = schema.verdicts
    query = select(func.count(table.c.score_value), func.sum(table.c.score_value)).where(
        table.c.batch_id == batch_id,
        *_rubric_scope(table, rubric_id, rubric_version, model),
        table.c.score_value.is_not(None),
        *row_conditions(table, only),
    )
    with reading(store.engine) as connection:
        n, total = connection.execute(query).one()
    return int(n or 0), float(total or 0)


def _scored_totals(
    store: Store, batch_id: int, rubric_id: str, rubric_version: str, model: str, only: RunFilter
) -> tuple[int, float] | None:
    """:func:`scored_verdict_sums` from the daily totals; None when they counted an inexact
    score."""
    source = verdict_totals(store.engine.dialect.name)
    query = select(
        func.sum(source.c.scores), func.sum(source.c.score_sum), func.sum(source.c.inexact)
    ).where(
        source.c.batch_id == batch_id,
        *_rubric_scope(source, rubric_id, rubric_version, model),
        *row_conditions(source, only),
    )
    with reading(store.engine) as connection:
        n, total, inexact = connection.execute(query).one()
    return None if inexact else (int(n or 0), float(total or 0))


def latest_calibrations(store: Store, rubric_ids: Iterable[str]) -> list[dict[str, Any]]:
    """The newest recorded calibration report of each rubric (those with one), in order."""
    table = schema.calibrations
    found: list[dict[str, Any]] = []
    with reading(store.engine) as connection:
        for rubric_id in rubric_ids:
            query = (
                select(table.c.data)
                .where(table.c.rubric_id == rubric_id)
                .order_by(table.c.at.desc(), table.c.id.desc())
                .limit(1)
            )
            data = connection.execute(query).scalar_one_or_none()
            if data is not None:
                found.append(dict(data))
    return found


def latest_batch(store: Store) -> Batch | None:
    """The most recently created batch, or None in an empty store."""
    table = schema.batches
    query = select(table).order_by(table.c.created_at.desc(), table.c.id.desc()).limit(1)
    with reading(store.engine) as connection:
        row = connection.execute(query).mappings().first()
    return None if row is None else Batch(**row)


def verdict_identities_elsewhere(
    store: Store, run_ids: Iterable[str], batch_id: int
) -> set[VerdictIdentity]:
    """The identities of the verdicts about ``run_ids`` that batches other than ``batch_id``
    hold."""
    table = schema.verdicts
    wanted = sorted(set(run_ids))
    found: set[VerdictIdentity] = set()
    with reading(store.engine) as connection:
        for start in range(0, len(wanted), IDS_PER_QUERY):
            query = select(
                table.c.run_id, table.c.rubric_id, table.c.rubric_version, table.c.model, table.c.at
            ).where(
                table.c.run_id.in_(wanted[start : start + IDS_PER_QUERY]),
                table.c.batch_id != batch_id,
            )
            for run_id, rubric_id, version, model, at in connection.execute(query):
                found.add((run_id, rubric_id, version, model, at.astimezone(UTC)))
    return found


def _grouped(
    store: Store,
    table: Table | Subquery,
    aggregates: Sequence[ColumnElement[Any]],
    *,
    since: datetime | None,
    by: Grouping,
    where: Sequence[ColumnElement[bool]] = (),
    having: ColumnElement[bool] | None = None,
) -> list[WindowSums]:
    """The ``aggregates`` of ``table`` per window, oldest first (only the windows where
    ``having`` holds, when given)."""
    query: Select[Any]
    if by == "day":
        day = table.c.day
        query = select(day, *aggregates).group_by(day).order_by(day)
        if since is not None:
            # Whole days: a window is a day, so the first one shown is complete.
            query = query.where(day >= _day(since))
            if table is schema.verdicts:  # the same rows, in a range of its rubric index
                midnight = datetime.fromisoformat(_day(since)).replace(tzinfo=UTC)
                query = query.where(table.c.at >= midnight)
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
    if having is not None:
        query = query.having(having)
    with reading(store.engine) as connection:
        result = connection.execute(query).all()
    windows = []
    for row in result:
        if by == "day":
            key, values = row[0], tuple(row[1:])
            label, moment = str(key), datetime.fromisoformat(str(key)).replace(tzinfo=UTC)
        else:
            key, start, values = row[0], row[1], tuple(row[2:])
            label, moment = f"batch {key}", _moment(start)
        windows.append(WindowSums(label, moment, values))
    return windows


def _moment(value: Any) -> datetime:
    """``min(at)`` comes back as the column's type on PostgreSQL, as its text on SQLite."""
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.fromisoformat(str(value)).astimezone(UTC)
