"""The report as one self-contained HTML5 file: inline style, no script, no external URL.

Images are embedded as ``data:`` URLs, and a Content-Security-Policy forbids anything else,
so the file can be mailed, attached to a CI run or opened offline. Every value that comes
from data (task and run ids, agent output, judge reasons) is HTML-escaped: it is untrusted.
"""

from __future__ import annotations

from pathlib import Path

from judgekit._util.atomic_files import atomic_writer
from judgekit.report.content import ReportContent
from judgekit.report.html_blocks import page, section
from judgekit.report.judge_sections import (
    MAX_DISAGREEMENTS,
    calibrations_section,
    disagreements_section,
    rubrics_section,
)
from judgekit.report.monitor_sections import alerts_section, metrics_section, plots_section
from judgekit.report.suite_sections import header, suite_section, tasks_section

__all__ = ["MAX_DISAGREEMENTS", "render_report", "write_report"]


def render_report(content: ReportContent) -> str:
    """The whole report as an HTML5 document."""
    kinds = {series.metric: series.kind for series in content.series}
    body = [
        header(content),
        section("suite", "Suite", suite_section(content.summary)),
        section("tasks", "Tasks", tasks_section(content.summary)),
        section("alerts", "Alerts", alerts_section(content.all_alerts(), kinds)),
        section("metrics", "Metrics", metrics_section(content.series)),
        section("rubrics", "Rubrics", rubrics_section(content.rubrics)),
        section("calibration", "Calibration", calibrations_section(content.calibrations)),
        section("plots", "Plots", plots_section(content.images)),
        section("disagreements", "Disagreements", disagreements_section(content.calibrations)),
    ]
    return page(content.title, body)


def write_report(path: Path, content: ReportContent) -> None:
    """Render ``content`` to ``path``, which appears whole or not at all."""
    document = render_report(content)
    with atomic_writer(path) as fh:
        fh.write(document)
