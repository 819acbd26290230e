"""The HTML report shows a selective judge's coverage beside the rubric's scores."""

from __future__ import annotations

from pathlib import Path

from judgekit.report.gather import build_report_content
from judgekit.report.render import render_report
from judgekit.store import Store
from tests.monitoring.test_coverage import record_days, rubric_in
from tests.store.conftest import store, store_url

__all__ = ["store", "store_url"]  # the fixtures this module uses


def test_the_metric_table_shows_coverage_and_abstentions(store: Store, tmp_path: Path) -> None:
    rubric = rubric_in(tmp_path, selective=True)
    record_days(store, rubric, [8, 12, 30])
    content, _ = build_report_content(store, title="t", batch=None, rubrics=[rubric])
    page = render_report(content)
    assert "goal_completion coverage (verdicts not abstained)" in page
    assert "abstained in 2026-11-22: 30 of 100" in page
    assert "coverage 70.0% in 2026-11-22 (70 of 100 verdicts kept, 30 abstained)" in page
