"""How a generated or hand-written test fails: an ``AssertionError`` whose message says why."""

from __future__ import annotations

from pathlib import Path

from judgekit._util.number_format import percent, setting
from judgekit._util.terminal_text import visible
from judgekit.gate.compare import GateReport

__all__ = ["RegressionFailed", "TaskFailed", "regression_message"]


class TaskFailed(AssertionError):
    """A task's pass rate is below the required rate; the message says which trials failed
    and why. An ``AssertionError``, so any test runner reports it as a test failure."""


class RegressionFailed(AssertionError):
    """The candidate's results are worse than the baseline's (the gate said no)."""


def regression_message(report: GateReport, baseline: Path) -> str:
    """One line per reason a task failed the gate, under a line saying against what."""
    lines = [
        f"worse than the baseline {baseline} in {len(report.failing_tasks)} of "
        f"{len(report.tasks)} tasks (pass rates: one-sided two-proportion test, alpha "
        f"{setting(report.alpha)}; cost and turns: +{percent(report.cost_tolerance, decimals=0)} and "
        f"+{percent(report.turns_tolerance, decimals=0)} at a flat pass rate)"
    ]
    for task in report.tasks:
        if task.verdict == "fail":
            lines.extend(
                visible(f"{task.task_id}: {reason}", one_line=True) for reason in task.reasons
            )
    return "\n".join(lines)
