"""A selective judge's coverage over time: the share of its verdicts not abstained, per
window, and an alert when it falls significantly below the coverage it was promoted at.

A rubric promoted selectively (``judgekit promote`` with ``promotion.selective``) records the
coverage it reached on the labels. When the judge starts abstaining more — the inputs have
moved to where it hesitates — fewer verdicts count and more land in people's queue, so the
monitor tests the latest window against the promoted coverage with a one-sided exact
binomial test: p = P(X ≤ kept) for X ~ Binomial(n, promoted coverage). A rubric not promoted
selectively gets an informational series only once some verdict of it was abstained.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from judgekit._util.number_format import p_equation, percent, setting
from judgekit.calibration.promotion import promotion_record_path
from judgekit.formats.promotion import load_promotion_record
from judgekit.formats.rubric import Rubric
from judgekit.monitoring.model import Alert, Point, Series
from judgekit.monitoring.points import proportion_point
from judgekit.stats.selective import binomial_cdf
from judgekit.store import Store
from judgekit.store.queries import Grouping, verdict_coverage_counts
from judgekit.store.run_filter import EVERYTHING, RunFilter

__all__ = ["coverage_series", "promoted_coverage"]


def promoted_coverage(rubric: Rubric, rubrics_dir: Path) -> Point | None:
    """The coverage a promoted rubric's selective promotion reached (as a point labelled
    ``promoted``, its ``n`` the labels it was measured on); None without one."""
    record = load_promotion_record(promotion_record_path(rubric, rubrics_dir))
    selective = getattr(record, "selective", None)
    coverage, n = _field(selective, "coverage"), _field(selective, "n")
    if not isinstance(coverage, int | float) or isinstance(coverage, bool):
        return None
    at = record.promoted_time or datetime.min
    count = n if isinstance(n, int) and not isinstance(n, bool) else 0
    return Point("promoted", at, count, float(coverage), None, None)


def _field(selective: object, name: str) -> object:
    """A field of the record's ``selective``, whether typed or kept as read."""
    if isinstance(selective, dict):
        return selective.get(name)
    return getattr(selective, name, None)


def coverage_series(
    store: Store,
    rubric_id: str,
    *,
    rubric_version: str | None,
    model: str | None,
    promoted: Point | None,
    alpha: float,
    since: datetime | None,
    by: Grouping,
    only: RunFilter = EVERYTHING,
) -> Series | None:
    """The coverage series of a rubric's verdicts (of one version and judge model when
    given): gating against ``promoted`` when the rubric was promoted selectively, else
    informational; None when no verdict holds a score in the windows shown, or nothing was
    abstained and no coverage was promoted."""
    rows = verdict_coverage_counts(
        store, rubric_id, rubric_version=rubric_version, model=model, since=since, by=by, only=only
    )
    points = [proportion_point(label, at, n, kept) for label, at, (n, kept) in rows]
    abstained = sum(point.n - (point.successes or 0) for point in points)
    if not any(point.n for point in points) or (promoted is None and not abstained):
        return None  # nothing judged in the windows shown, or nothing ever abstained
    series = Series(
        f"coverage:{rubric_id}",
        f"{rubric_id} coverage (verdicts not abstained)",
        "proportion",
        "gating" if promoted is not None else "informational",
        [point for point in points if point.n],
    )
    latest = series.points[-1] if series.points else None
    if latest is not None:
        series.note = (
            f"abstained in {latest.label}: {latest.n - (latest.successes or 0)} of {latest.n}"
        )
    if promoted is None or latest is None or promoted.value is None:
        return series
    series.baseline, series.baseline_labels = promoted, [promoted.label]
    series.p_value = binomial_cdf(latest.successes or 0, latest.n, promoted.value)
    if series.p_value < alpha:
        series.alert = Alert(
            series.metric,
            promoted,
            latest,
            series.p_value,
            alpha,
            f"coverage {percent(latest.value)} in {latest.label} ({latest.successes} of "
            f"{latest.n} verdicts kept, {latest.n - (latest.successes or 0)} abstained), below "
            f"the promoted {percent(promoted.value)}; one-sided exact binomial "
            f"{p_equation(series.p_value)}, alpha {setting(alpha)}",
        )
    return series
