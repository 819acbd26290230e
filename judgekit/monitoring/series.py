"""Metric series from the store: one point per day or per batch, aggregated in SQL.

Grades give the deterministic metrics (pass rate, Truth, Path, State, Answer as proportions;
cost and turns per run as means); verdicts give one series per rubric (binary rubrics as the
share of passes, Likert rubrics as the mean score). The sums and counts come from
:mod:`judgekit.store.queries`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from judgekit.monitoring.model import MetricKind, MetricRole, Point, Series, TaskDrop
from judgekit.monitoring.points import mean_point, proportion_point
from judgekit.store import Store
from judgekit.store.queries import grade_sums, task_successes, verdict_score_sums
from judgekit.store.run_filter import EVERYTHING, RunFilter

Window = Literal["day", "batch"]


# (metric, title, grade column or None for the overall pass); a None value is "not checked".
_PROPORTIONS: tuple[tuple[str, str, str], ...] = (
    ("pass_rate", "pass rate", "passed"),
    ("truth", "Truth (right tools and arguments)", "truth_passed"),
    ("path", "Path (no loops, duplicates, within budget)", "path_passed"),
    ("state", "State (the world ended right)", "state_passed"),
    # Unmeasured until some task sets expect_answer: then the series is empty and not shown.
    ("answer", "Answer (told the user what was expected)", "answer_passed"),
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


def grade_series(
    store: Store, *, since: datetime | None, by: Window, only: RunFilter = EVERYTHING
) -> list[Series]:
    """Pass rate, Truth, Path, State and Answer (proportions), cost and turns per run (means)."""
    proportions = [name for _, _, name in _PROPORTIONS]
    means = [name for _, _, name in _MEANS]
    rows = grade_sums(store, proportions=proportions, means=means, since=since, by=by, only=only)
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
    store: Store,
    metric: str,
    *,
    baseline: Sequence[str],
    latest: str,
    by: Window,
    only: RunFilter = EVERYTHING,
) -> list[TaskDrop]:
    """Per task, a grade metric's successes in the baseline windows and in the latest one
    (windows by their labels: days, or "batch N"), the largest falls first."""

    def window(label: str) -> str | int:
        return label if by == "day" else int(label.removeprefix("batch "))

    windows = [window(label) for label in [*baseline, latest]]
    counts: dict[str, dict[bool, tuple[int, int]]] = {}
    for task_id, at, n, successes in task_successes(
        store, GRADE_COLUMNS[metric], windows=windows, by=by, only=only
    ):
        sides = counts.setdefault(task_id, {})
        side = at == window(latest)
        before_n, before_s = sides.get(side, (0, 0))
        sides[side] = (before_n + n, before_s + successes)
    drops = []
    for task_id, sides in counts.items():
        (base_n, base_s), (last_n, last_s) = sides.get(False, (0, 0)), sides.get(True, (0, 0))
        if base_n and last_n:
            drop = TaskDrop(task_id, base_n, base_s, last_n, last_s)
            if drop.change < 0:
                drops.append(drop)
    return sorted(drops, key=lambda d: (d.change, d.task_id))


def rubric_series(
    store: Store,
    scope: RubricScope,
    *,
    since: datetime | None,
    by: Window,
    only: RunFilter = EVERYTHING,
) -> Series:
    """A rubric's scored verdicts per window: the pass share (binary) or mean (Likert)."""
    rows = verdict_score_sums(
        store,
        scope.rubric_id,
        rubric_version=scope.rubric_version,
        model=scope.model,
        since=since,
        by=by,
        only=only,
    )
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


def _present(points: list[Point]) -> list[Point]:
    """Drop the leading and trailing windows where a metric was not measured at all (e.g.
    State before any task had an expected state); gaps inside stay, as n = 0 points."""
    measured = [i for i, point in enumerate(points) if point.n > 0]
    if not measured:
        return []
    return points[measured[0] : measured[-1] + 1]
