"""The HTML report: one self-contained file with the suite, the monitor and the judges.

::

    content = ReportContent(title="shop", generated_at=now, store_url=masked, summary=...)
    write_report(Path("report.html"), content)
"""

from __future__ import annotations

from judgekit.report.render import MAX_DISAGREEMENTS, render_report, write_report
from judgekit.report.report_data import ReportContent, RubricLine, RubricRow

__all__ = [
    "MAX_DISAGREEMENTS",
    "ReportContent",
    "RubricLine",
    "RubricRow",
    "render_report",
    "write_report",
]
