"""The report as one self-contained HTML5 file: inline style, no script, no external URL.

Images are embedded as ``data:`` URLs, and a Content-Security-Policy forbids anything else,
so the file can be mailed, attached to a CI run or opened offline. Every value that comes
from data (task and run ids, agent output, judge reasons) is HTML-escaped: it is untrusted.
"""

from __future__ import annotations

from pathlib import Path

from judgekit._util.atomic_files import atomic_writer
from judgekit.report.html_blocks import page
from judgekit.report.judge_sections import (
    MAX_DISAGREEMENTS,
    calibrations_section,
    disagreements_section,
    rubrics_section,
)
from judgekit.report.monitor_sections import alerts_section, metrics_section, plots_section
from judgekit.report.report_data import ReportContent
from judgekit.report.suite_sections import header
from judgekit.report.table_of_contents import Part, suite_parts, table_of_contents

__all__ = ["MAX_DISAGREEMENTS", "render_report", "write_report"]


def render_report(content: ReportContent) -> str:
    """The whole report as an HTML5 document."""
    kinds = {series.metric: series.kind for series in content.series}
    parts = [
        *suite_parts(content),
        Part("alerts", "Alerts", alerts_section(content.all_alerts(), kinds)),
        Part("metrics", "Metrics", metrics_section(content.series)),
        Part("rubrics", "Rubrics", rubrics_section(content.rubrics)),
        Part("calibration", "Calibration", calibrations_section(content.calibrations)),
        Part("plots", "Plots", plots_section(content.images)),
        Part(
            "disagreements",
            "Disagreements",
            disagreements_section(content.calibrations, content.evidence),
        ),
    ]
    body = [header(content), table_of_contents(parts), *(part.html() for part in parts)]
    return page(content.title, body)


def write_report(path: Path, content: ReportContent) -> None:
    """Render ``content`` to ``path``, which appears whole or not at all."""
    document = render_report(content)
    with atomic_writer(path) as fh:
        fh.write(document)
