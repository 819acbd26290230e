"""Gathering the HTML report's content from the store: the suite of one graded batch, the
monitor's series and alerts, each rubric's status and latest calibration, and the plots."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judgekit.formats.grade import Grade
from judgekit.formats.rubric import Rubric
from judgekit.graders.summary import GradeSummary
from judgekit.monitoring.alerts import AlertPolicy
from judgekit.monitoring.monitor import MonitorReport, build_monitor_report
from judgekit.monitoring.plots import SPEND_METRICS, plot_confusion
from judgekit.monitoring.series import Window
from judgekit.report import MAX_DISAGREEMENTS, ReportContent
from judgekit.report.report_data import RunEvidence
from judgekit.store import Batch, Store
from judgekit.store.queries import latest_calibrations
from judgekit.store.run_filter import EVERYTHING, RunFilter, run_suite
from judgekit.store.shard_status import RunShards, stored_run_shards


def suite_summary(grades: Iterable[Grade], *, k: int | None = None) -> dict[str, Any] | None:
    """The per-task summary of a set of grades (None when there are none)."""
    summary = GradeSummary()
    for grade in grades:
        summary.add(grade)
    return summary.as_dict(k=k) if summary.runs else None


def suite_summaries(
    grades: Iterable[Grade], *, k: int | None = None
) -> list[tuple[str | None, dict[str, Any]]]:
    """The summary of each suite's grades (a run's suite from its run id), in the order met."""
    by_suite: dict[str | None, list[Grade]] = {}
    for grade in grades:
        by_suite.setdefault(run_suite(grade.run_id, grade.task_id), []).append(grade)
    found = [(name, suite_summary(shown, k=k)) for name, shown in by_suite.items()]
    return [(name, summary) for name, summary in found if summary is not None]


def build_report_content(
    store: Store,
    *,
    title: str,
    batch: Batch | None,
    grades: Sequence[Grade] | None = None,
    rubrics: Sequence[Rubric] = (),
    labels_dir: Path | None = None,
    since: datetime | None = None,
    by: Window = "day",
    policy: AlertPolicy | None = None,
    k: int | None = None,
    only: RunFilter = EVERYTHING,
    shards: RunShards | None = None,
) -> tuple[ReportContent, MonitorReport]:
    """Everything the report shows, of the runs ``only`` lets through. ``grades`` (a results
    file) replace the batch's own (and are narrowed to ``only``'s suite); ``shards`` are
    those of a folder of shards they were read from (a batch's are read from the store)."""
    monitor = build_monitor_report(
        store,
        rubrics=rubrics,
        labels_dir=labels_dir,
        since=since,
        by=by,
        policy=policy,
        only=only,
    )
    if grades is not None:
        shown = [g for g in grades if only.suite in (None, run_suite(g.run_id, g.task_id))]
    else:
        shown = store.grades(batch.id, only=only) if batch else []
    calibrations = latest_calibrations(store, [line.id for line in monitor.rubrics])
    images: dict[str, bytes] = {}
    metrics = {s.metric for s in monitor.series}
    if metrics - set(SPEND_METRICS):
        images["Scores over time (95% intervals; red: alert)"] = monitor.plots.scores
    if metrics & set(SPEND_METRICS):
        images["Cost and turns per run over time"] = monitor.plots.spend
    for calibration in calibrations:
        confusion = calibration.get("confusion")
        if confusion:
            rubric_id = calibration.get("rubric_id", "?")
            images[f"{rubric_id}: judge against the hand labels"] = plot_confusion(
                confusion, title=f"{rubric_id} ({calibration.get('model', '?')})"
            )
    summary = suite_summary(shown, k=k)
    if batch is not None and grades is None:
        shards = stored_run_shards(store, batch)
    content = ReportContent(
        title=title,
        generated_at=datetime.now(UTC),
        store_url=store.url,
        git_sha=batch.git_sha if batch else None,
        git_branch=batch.branch if batch else None,
        summary=summary,
        suites=suite_summaries(shown, k=k),
        only=None if only.is_empty else only.describe(),
        series=monitor.series,
        alerts=monitor.alerts,
        rubrics=monitor.rubrics,
        calibrations=calibrations,
        images=images,
        evidence=run_evidence(store, shown, _unfolded_ids(summary, calibrations)),
        shards=None if shards is None else shards.status,
        run_shards={} if shards is None else shards.by_run,
    )
    return content, monitor


def _unfolded_ids(
    summary: dict[str, Any] | None, calibrations: Sequence[dict[str, Any]]
) -> list[str]:
    """The runs the report unfolds: the failing runs it lists, and the disagreements."""
    ids = [
        failure["run_id"]
        for task in (summary or {}).get("tasks", [])
        for failure in task.get("failures", [])
    ]
    for calibration in calibrations:
        found = calibration.get("disagreements", [])[:MAX_DISAGREEMENTS]
        ids.extend(d["run_id"] for d in found if "run_id" in d)
    return ids


def run_evidence(
    store: Store, grades: Sequence[Grade], run_ids: Sequence[str]
) -> dict[str, RunEvidence]:
    """Each run id's run as the store holds it and its grade among ``grades`` (a bounded
    number of ids: the report lists at most so many failing runs and disagreements)."""
    if not run_ids:
        return {}
    wanted = set(run_ids)
    runs = store.runs(wanted)
    graded = {grade.run_id: grade for grade in grades if grade.run_id in wanted}
    return {run_id: RunEvidence(runs.get(run_id), graded.get(run_id)) for run_id in wanted}
