"""The generated tests: one per task, and the regression test against the baseline."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from judgekit._util.terminal_text import visible
from judgekit.errors import JudgekitError
from judgekit.formats.grade import load_results
from judgekit.formats.task import Task
from judgekit.gate.compare import compare_results
from judgekit.pytest_plugin.failures import RegressionFailed, TaskFailed, regression_message
from judgekit.pytest_plugin.suite_run import SuiteRun
from judgekit.trials.task_outcome import task_name

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle

__all__ = ["ALPHA", "MARKER", "REGRESSION_NAME", "RegressionItem", "TaskItem", "suite_items"]

MARKER = "judgekit"
REGRESSION_NAME = "judgekit[regression]"
ALPHA = 0.05


class _JudgekitItem(pytest.Item):
    """A generated test: located at the suite file, failing with a message, not a traceback."""

    def __init__(self, *, suite_run: SuiteRun, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite_run = suite_run
        self.add_marker(MARKER)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.suite_run.settings.tasks_path, None, self.name

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        # Our verdicts and judgekit's user errors are complete messages (quoting data, so
        # shown visibly); anything else is a bug and keeps its traceback.
        if excinfo.errisinstance((TaskFailed, RegressionFailed, JudgekitError)):
            return visible(str(excinfo.value))
        return super().repr_failure(excinfo, style)


class TaskItem(_JudgekitItem):
    """``judgekit[<suite>/<task_id>]``: the task's trials meet the required pass rate."""

    def __init__(self, *, task: Task, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task = task

    def runtest(self) -> None:
        outcome = self.suite_run.outcome(self.task)
        if not outcome.passed:
            raise TaskFailed(outcome.message())


class RegressionItem(_JudgekitItem):
    """``judgekit[regression]``: the gate passes the session's results against the baseline."""

    def runtest(self) -> None:
        baseline = self.suite_run.settings.baseline
        assert baseline is not None  # only collected with a baseline
        report = compare_results(load_results(baseline), self.suite_run.all_grades(), alpha=ALPHA)
        if not report.passed:
            raise RegressionFailed(regression_message(report, baseline))


def suite_items(session: pytest.Session, suite_run: SuiteRun) -> Iterable[pytest.Item]:
    """A test per task of the suite, then the regression test when there is a baseline."""
    for task in suite_run.tasks:
        name = f"judgekit[{task_name(task)}]"
        # An explicit nodeid: under the session the default would be "::judgekit[...]".
        yield TaskItem.from_parent(session, name=name, nodeid=name, task=task, suite_run=suite_run)
    if suite_run.settings.baseline is not None:
        # Last, so the task tests have already run the trials it compares.
        yield RegressionItem.from_parent(
            session, name=REGRESSION_NAME, nodeid=REGRESSION_NAME, suite_run=suite_run
        )
