"""The calibration report: a rubric's verdicts joined with its hand labels, the agreement
figures, and the promotion policy's verdict (``judgekit calibrate`` and ``judgekit promote``).

::

    report = build_report(rubric, verdicts, read_labels(path, rubric).current)
    print(render_text(report))
    if report.promotable:
        record = promotion_record(report)

The modules, in the order a report is built: ``selection`` (which verdicts count),
``join`` (verdicts with hand labels), ``figures`` and ``pass_rates`` (the statistics),
``labellers`` (per labeller, stale labels, disagreements), ``criteria`` (the promotion
policy), ``report`` (all of it), ``compare`` (two judges), ``render`` and ``markdown``
(text), ``promotion`` (the record and a rubric's status), ``load`` (reading the labels and the
verdicts: :func:`load_calibration` is ``judgekit calibrate`` as a library call).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgekit._util.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from judgekit.calibration.agreement_statistics import IntervalMethod
    from judgekit.calibration.compare import JudgeComparison, build_comparison
    from judgekit.calibration.criteria import Criterion, LabelsNeeded
    from judgekit.calibration.labellers import Disagreement
    from judgekit.calibration.load import (
        JudgedVerdicts,
        calibration_report,
        load_calibration,
        read_judged_verdicts,
    )
    from judgekit.calibration.markdown import render_markdown
    from judgekit.calibration.pass_rates import PassRates
    from judgekit.calibration.promotion import promotion_record
    from judgekit.calibration.promotion_check import RecordProblem, verify_promotion_record
    from judgekit.calibration.render import failure_lines, labels_needed_line, render_text
    from judgekit.calibration.report import CalibrationReport, build_report
    from judgekit.calibration.selection import VerdictSelection, select_verdicts

__all__ = [
    "CalibrationReport",
    "Criterion",
    "Disagreement",
    "IntervalMethod",
    "JudgeComparison",
    "JudgedVerdicts",
    "LabelsNeeded",
    "PassRates",
    "RecordProblem",
    "VerdictSelection",
    "build_comparison",
    "build_report",
    "calibration_report",
    "failure_lines",
    "labels_needed_line",
    "load_calibration",
    "promotion_record",
    "read_judged_verdicts",
    "render_markdown",
    "render_text",
    "select_verdicts",
    "verify_promotion_record",
]


# Loaded on first use: the comparison of two judges needs numpy, and a command that
# only reads a rubric's promotion status (rubrics, gate, promote) must not pay for it at start-up.
_LAZY = {
    "JudgeComparison": "judgekit.calibration.compare",
    "build_comparison": "judgekit.calibration.compare",
    "Criterion": "judgekit.calibration.criteria",
    "LabelsNeeded": "judgekit.calibration.criteria",
    "IntervalMethod": "judgekit.calibration.agreement_statistics",
    "Disagreement": "judgekit.calibration.labellers",
    "JudgedVerdicts": "judgekit.calibration.load",
    "calibration_report": "judgekit.calibration.load",
    "load_calibration": "judgekit.calibration.load",
    "read_judged_verdicts": "judgekit.calibration.load",
    "render_markdown": "judgekit.calibration.markdown",
    "PassRates": "judgekit.calibration.pass_rates",
    "promotion_record": "judgekit.calibration.promotion",
    "RecordProblem": "judgekit.calibration.promotion_check",
    "verify_promotion_record": "judgekit.calibration.promotion_check",
    "failure_lines": "judgekit.calibration.render",
    "labels_needed_line": "judgekit.calibration.render",
    "render_text": "judgekit.calibration.render",
    "CalibrationReport": "judgekit.calibration.report",
    "build_report": "judgekit.calibration.report",
    "VerdictSelection": "judgekit.calibration.selection",
    "select_verdicts": "judgekit.calibration.selection",
}


__getattr__ = lazy_exports(__name__, _LAZY)
