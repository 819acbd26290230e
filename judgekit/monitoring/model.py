"""What the monitor computes: a metric's series of points, and the alert on its latest window.

Plain data, shared by the queries that build it, the plots that draw it, the HTML report and
``judgekit monitor --json``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Literal

from judgekit._util.number_format import rate

MetricKind = Literal["proportion", "mean"]
# gating: an alert on it fires (exit 1); informational: shown, never alerting (draft rubrics).
MetricRole = Literal["gating", "informational"]


@dataclass(frozen=True)
class Point:
    """One window of a series: a day or a batch.

    For a proportion, ``value`` is ``successes / n`` and ``low``/``high`` its Wilson 95%
    interval; for a mean, ``value`` is the mean of ``n`` values and the interval is the
    normal one (``value ± 1.96·sd/√n``), with ``sd`` kept for the tests between windows.
    """

    label: str  # "2026-11-29" or "batch 12"
    at: datetime  # the window's start (a day) or the batch's creation time
    n: int
    value: float | None
    low: float | None
    high: float | None
    successes: int | None = None  # proportions only
    sd: float | None = None  # means only: the sample standard deviation


@dataclass(frozen=True)
class Alert:
    """The latest window is significantly worse than the baseline window."""

    metric: str
    baseline: Point  # the pooled baseline window
    latest: Point
    p_value: float
    alpha: float
    message: str
    # Grade metrics: the tasks whose rate fell most, worst first, to say where to look.
    tasks: tuple[TaskDrop, ...] = ()


@dataclass(frozen=True)
class TaskDrop:
    """One task's rate in the baseline windows and in the latest one."""

    task_id: str
    baseline_n: int
    baseline_successes: int
    latest_n: int
    latest_successes: int

    @property
    def change(self) -> float:
        return self.latest_successes / self.latest_n - self.baseline_successes / self.baseline_n

    def describe(self) -> str:
        before = rate(self.baseline_successes / self.baseline_n)
        now = rate(self.latest_successes / self.latest_n)
        return f"{self.task_id} {before} → {now} ({self.latest_successes}/{self.latest_n})"


@dataclass
class Series:
    """One metric over time."""

    # "pass_rate", "truth", "path", "state", "answer", "rubric:goal_completion", "cost_usd", "turns"
    metric: str
    title: str  # what a person reads: "pass rate", "goal_completion (promoted)"
    kind: MetricKind
    role: MetricRole
    points: list[Point] = field(default_factory=list)
    alert: Alert | None = None
    note: str | None = None  # why informational, or why no test was possible
    baseline: Point | None = None  # the pooled baseline window the latest was tested against
    baseline_labels: list[str] = field(default_factory=list)  # the windows pooled in it
    p_value: float | None = None  # one-sided: the latest window is worse than the baseline

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = _jsonable(asdict(self))
        return data


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_jsonable(item) for item in value]
    return value
