"""The calibration report: a rubric's verdicts joined with its hand labels, the agreement
figures, and the promotion policy's verdict (``judgekit calibrate`` and ``judgekit promote``).

::

    report = build_report(rubric, verdicts, read_labels(path, rubric).current)
    print(render_text(report))
    if report.promotable:
        record = promotion_record(report)
"""

from __future__ import annotations

from judgekit.calibration.compare import build_comparison
from judgekit.calibration.render import (
    failure_lines,
    labels_needed_line,
    render_markdown,
    render_text,
)
from judgekit.calibration.report import (
    CalibrationReport,
    Criterion,
    Disagreement,
    IntervalMethod,
    PassRates,
    VerdictSelection,
    build_report,
    promotion_record,
    select_verdicts,
)

__all__ = [
    "CalibrationReport",
    "Criterion",
    "Disagreement",
    "IntervalMethod",
    "PassRates",
    "VerdictSelection",
    "build_comparison",
    "build_report",
    "failure_lines",
    "labels_needed_line",
    "promotion_record",
    "render_markdown",
    "render_text",
    "select_verdicts",
]
