"""What the HTML report shows, as plain data gathered by the caller (store queries, plots)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from judgekit.formats.grade import Grade
from judgekit.formats.run import Run
from judgekit.monitoring.model import Alert, Series
from judgekit.store.shard_status import ShardStatus


@dataclass(frozen=True)
class RunEvidence:
    """What the report shows under a failing run or a disagreement: the run as recorded
    (None when the store does not hold it) and its grade (None when it was not graded)."""

    run: Run | None
    grade: Grade | None = None


@dataclass(frozen=True)
class RubricLine:
    """One rubric's status line: ``judgekit rubrics`` in a row.

    ``status`` is a :data:`~judgekit.calibration.promotion.RubricStatus` (promoted, calibrating,
    draft, stale), or "unknown" for a rubric seen in the store without its file; version
    and model are None when unknown.
    """

    id: str
    version: str | None
    status: str
    reason: str
    model: str | None


class RubricRow(Protocol):
    """What the report reads of a rubric line: a :class:`RubricLine` or any object with
    the same fields (the monitor's own lines)."""

    @property
    def id(self) -> str: ...
    @property
    def version(self) -> str | None: ...
    @property
    def status(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def model(self) -> str | None: ...


@dataclass
class ReportContent:
    """Everything the report shows.

    ``summary`` is :meth:`GradeSummary.as_dict` (None when no grades were recorded) of all
    the graded runs shown, ``suites`` the same per suite (name, summary), in the order
    met: the report gives each suite its own section, never one headline blending them
    (empty, or one unnamed suite: ``summary`` is shown as one suite);
    ``calibrations`` are :meth:`CalibrationReport.as_dict` objects, whose disagreements the
    report lists; ``images`` maps a caption to PNG bytes, shown in order; ``evidence`` holds,
    by run id, the failing runs and the disagreements the report unfolds (a run not in it
    is listed by its id and reason only); ``shards`` says how whole the run the shards
    shown recorded is (None when the runs came from no shards), ``run_shards`` the shard
    ("I/N") of each run that came from one. ``store_url`` is shown as given, so it must
    already have its password masked.
    """

    title: str
    generated_at: datetime
    store_url: str
    git_sha: str | None = None
    git_branch: str | None = None
    summary: dict[str, Any] | None = None
    suites: list[tuple[str | None, dict[str, Any]]] = field(default_factory=list)
    only: str | None = None  # the filter the runs shown passed, as its options
    series: list[Series] = field(default_factory=list)
    alerts: list[Alert] = field(default_factory=list)
    rubrics: Sequence[RubricRow] = ()
    calibrations: list[dict[str, Any]] = field(default_factory=list)
    images: Mapping[str, bytes] = field(default_factory=dict)
    evidence: Mapping[str, RunEvidence] = field(default_factory=dict)
    shards: ShardStatus | None = None
    run_shards: Mapping[str, str] = field(default_factory=dict)

    def all_alerts(self) -> list[Alert]:
        """``alerts`` plus those attached to a series and not already listed."""
        found = list(self.alerts)
        for series in self.series:
            if series.alert is not None and series.alert not in found:
                found.append(series.alert)
        return found
