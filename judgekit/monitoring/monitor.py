"""The monitor: every metric's series from the store, rubric roles from their status, and
the drift alerts on the latest window.

A rubric gates (can alert) only while promoted, and then only the verdicts of its promoted
version and judge model count: scores from another version or model measure something
else. Every other rubric is informational: drafts, rubrics being calibrated, stale ones,
and rubrics with verdicts in the store but no rubric file given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgekit.calibration.promotion import judged_model, rubric_status
from judgekit.errors import StoreError
from judgekit.formats.rubric import Rubric, scale_kind
from judgekit.formats.rubric_file import rubric_version
from judgekit.monitoring.alerts import AlertPolicy, evaluate_alerts
from judgekit.monitoring.coverage import coverage_series, promoted_coverage
from judgekit.monitoring.model import Alert, Series
from judgekit.monitoring.series import (
    GRADE_COLUMNS,
    RubricScope,
    Window,
    grade_series,
    rubric_series,
    task_drops,
)
from judgekit.store import Store
from judgekit.store.queries import matching_counts, stored_rubric_ids
from judgekit.store.run_filter import EVERYTHING, RunFilter

if TYPE_CHECKING:
    from judgekit.monitoring.plots import MonitorPlots


@dataclass(frozen=True)
class RubricLine:
    """A rubric as the monitor sees it."""

    id: str
    version: str | None
    status: str
    reason: str
    model: str | None


@dataclass
class MonitorReport:
    store: str
    since: datetime | None
    by: Window
    policy: AlertPolicy
    series: list[Series]
    rubrics: list[RubricLine] = field(default_factory=list)
    only: RunFilter = EVERYTHING

    @cached_property
    def plots(self) -> MonitorPlots:
        """The figures, drawn once however many outputs show them (matplotlib loads now)."""
        from judgekit.monitoring.plots import draw_monitor_plots

        return draw_monitor_plots(self.series)

    @property
    def alerts(self) -> list[Alert]:
        return [one.alert for one in self.series if one.alert is not None]

    def as_dict(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "since": self.since.isoformat() if self.since else None,
            "filter": self.only.as_dict(),
            "by": self.by,
            "alpha": self.policy.alpha,
            "baseline_windows": self.policy.baseline_windows,
            "min_n": self.policy.min_n,
            "correction": self.policy.correction,
            "alerts": [one.as_dict()["alert"] for one in self.series if one.alert is not None],
            "series": [one.as_dict() for one in self.series],
            "rubrics": [vars(line) for line in self.rubrics],
        }


def rubric_scope(
    rubric: Rubric, rubrics_dir: Path, labels_dir: Path | None
) -> tuple[RubricScope | None, RubricLine]:
    """How a rubric's verdicts are monitored (None for scales with no better or worse)."""
    status, reason = rubric_status(rubric, rubrics_dir, labels_dir=labels_dir)
    version = rubric_version(rubric)
    model = judged_model(rubric, status, rubrics_dir)
    line = RubricLine(rubric.id, version, status, reason, model)
    kind = scale_kind(rubric.scale)
    if kind not in ("binary", "likert"):
        return None, line
    gating = status == "promoted"
    title = f"{rubric.id} ({status})"
    scope = RubricScope(
        rubric_id=rubric.id,
        title=title,
        kind="proportion" if kind == "binary" else "mean",
        role="gating" if gating else "informational",
        rubric_version=version,
        model=model if gating else None,
        note=None if gating else f"informational: {status} ({reason}); only promoted rubrics alert",
    )
    return scope, line


def build_monitor_report(
    store: Store,
    *,
    rubrics: Sequence[Rubric] = (),
    rubrics_dir: Path = Path("rubrics"),
    labels_dir: Path | None = None,
    since: datetime | None = None,
    by: Window = "day",
    policy: AlertPolicy | None = None,
    only: RunFilter = EVERYTHING,
) -> MonitorReport:
    """Series of every metric, tested for drift (see :mod:`judgekit.monitoring.alerts`),
    of the runs ``only`` lets through: a :class:`StoreError` when it lets none through."""
    rules = policy or AlertPolicy()
    check_filter_matches(store, only)
    series = grade_series(store, since=since, by=by, only=only)
    lines: list[RubricLine] = []
    known: set[str] = set()
    coverages: list[Series] = []  # tested against their promoted coverage, not a baseline
    for rubric in rubrics:
        folder = rubric.source.parent if rubric.source is not None else rubrics_dir
        scope, line = rubric_scope(rubric, folder, labels_dir)
        lines.append(line)
        known.add(rubric.id)
        if scope is not None:
            series.append(rubric_series(store, scope, since=since, by=by, only=only))
        promoted = line.status == "promoted"
        coverage = coverage_series(
            store,
            rubric.id,
            rubric_version=line.version,
            model=line.model if promoted else None,
            promoted=promoted_coverage(rubric, folder) if promoted else None,
            alpha=rules.alpha,
            since=since,
            by=by,
            only=only,
        )
        coverages += [coverage] if coverage is not None else []
    for rubric_id in stored_rubric_ids(store, since=since, only=only):
        if rubric_id in known:
            continue
        scope = RubricScope(
            rubric_id=rubric_id,
            title=f"{rubric_id} (no rubric file given)",
            kind=None,
            role="informational",
            note="informational: no rubric file given, so its status is unknown",
        )
        series.append(rubric_series(store, scope, since=since, by=by, only=only))
        lines.append(RubricLine(rubric_id, None, "unknown", "no rubric file given", None))
    series = [one for one in series if one.points or one.metric.startswith("rubric:")]
    evaluate_alerts(series, rules)
    series += coverages
    for one in series:
        if one.alert is not None and one.metric in GRADE_COLUMNS:
            one.alert = _with_task_drops(store, one, by, only)
    return MonitorReport(store.url, since, by, rules, series, lines, only)


def check_filter_matches(store: Store, only: RunFilter) -> None:
    """A :class:`StoreError` when ``only`` filters and no grade or verdict passes it: a
    misspelt branch or suite is said, not shown as an empty, quiet monitor."""
    if not only.is_empty and matching_counts(store, only) == (0, 0):
        raise StoreError(f"{store.url}: no grade or verdict in the store matches {only.describe()}")


def _with_task_drops(store: Store, series: Series, by: Window, only: RunFilter) -> Alert:
    """The alert, naming the (up to three) tasks whose rate fell most: where to look."""
    assert series.alert is not None
    drops = task_drops(
        store,
        series.metric,
        baseline=series.baseline_labels,
        latest=series.points[-1].label,
        by=by,
        only=only,
    )[:3]
    if not drops:
        return series.alert
    named = ", ".join(drop.describe() for drop in drops)
    return replace(
        series.alert, tasks=tuple(drops), message=f"{series.alert.message}; fell most: {named}"
    )
