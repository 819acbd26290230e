"""One task's verdict over N trials: its pass rate against a required rate, and why it failed.

This is what a test runner needs from a task (``judgekit.pytest_plugin`` turns it into a
pytest test): pass or fail, and a message a person can act on without opening any file,
one line per failing grader of each failing trial.

>>> from judgekit.formats.grade import Grade, GraderResult
>>> grades = (
...     Grade(run_id="shop/refund_full/1", task_id="refund_full", trial=1, passed=True),
...     Grade(run_id="shop/refund_full/2", task_id="refund_full", trial=2, passed=False,
...           path=GraderResult(passed=False, reason="issue_refund called 2 times, max_calls is 1")),
... )
>>> outcome = TaskOutcome("shop/refund_full", grades, min_pass_rate=0.75)
>>> outcome.passed
False
>>> print(outcome.message())
shop/refund_full: pass rate 1/2 = 0.50, required ≥ 0.75
trial 2: path: issue_refund called 2 times, max_calls is 1
"""

from __future__ import annotations

from dataclasses import dataclass

from judgekit._util.number_format import rate, setting
from judgekit._util.terminal_text import visible
from judgekit.formats.grade import Grade, GraderResult
from judgekit.formats.task import Task
from judgekit.graders.grade import grade_run
from judgekit.trials.runner import TrialFunction

# A thousand failing trials would bury the verdict; the first ones show the pattern.
MAX_LISTED_TRIALS = 20

# Answer is None unless the task sets expect_answer, so it adds a line only where checked.
GRADERS = ("truth", "path", "state", "answer")


def task_name(task: Task) -> str:
    """``suite/task_id``, or the bare id of a task built in code."""
    return f"{task.suite}/{task.id}" if task.suite else task.id


def run_task_trials(trial: TrialFunction, task: Task, trials: int) -> list[Grade]:
    """Run and grade trials 1..``trials`` of ``task`` (the numbers seed each trial's rng,
    so trial 3 here is trial 3 of ``judgekit run``)."""
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    return [grade_run(trial(task, number), task) for number in range(1, trials + 1)]


def check_min_pass_rate(rate: float) -> float:
    """``rate`` itself when it is a proportion, else a ``ValueError`` saying so."""
    if not 0 <= rate <= 1:
        raise ValueError(f"min_pass_rate must be between 0 and 1, got {rate!r}")
    return rate


def failure_lines(grade: Grade) -> list[str]:
    """Every reason ``grade`` failed, each as ``grader: reason``.

    All failing graders are listed, not only the first: a run that refunded twice may
    fail Path and State for one cause, and seeing both points at it faster.
    """
    lines = []
    for name in GRADERS:
        result: GraderResult | None = getattr(grade, name)
        if result is not None and result.passed is False:
            lines.append(f"{name}: {result.reason}")
    if grade.violations:
        lines.append(f"violation: {'; '.join(grade.violations)}")
    if grade.stop_reason not in (None, "completed"):
        lines.append(f"run ended with stop_reason {grade.stop_reason}")
    if not lines and not grade.passed:
        lines.append("failed without a grader reason")  # kept visible rather than silent
    return lines


@dataclass(frozen=True)
class TaskOutcome:
    """The graded trials of one task and the pass rate it must reach."""

    name: str
    grades: tuple[Grade, ...]
    min_pass_rate: float

    @property
    def trials(self) -> int:
        return len(self.grades)

    @property
    def passes(self) -> int:
        return sum(grade.passed for grade in self.grades)

    @property
    def pass_rate(self) -> float:
        return self.passes / self.trials if self.trials else 0.0

    @property
    def passed(self) -> bool:
        # Comparing the quotient is exact enough: a correctly rounded k/n and a rate
        # parsed from the same decimal are the same float, so 15/20 meets 0.75.
        return self.trials > 0 and self.pass_rate >= self.min_pass_rate

    def message(self) -> str:
        """The rate against the required one, then each failing trial's reasons (data,
        which quote the agent's arguments: shown visibly, one line each)."""
        lines = [
            f"{self.name}: pass rate {self.passes}/{self.trials} = {rate(self.pass_rate)}, "
            f"required ≥ {setting(self.min_pass_rate)}"
        ]
        failing = [grade for grade in self.grades if not grade.passed]
        for grade in failing[:MAX_LISTED_TRIALS]:
            label = f"trial {grade.trial}" if grade.trial is not None else grade.run_id
            lines.extend(
                visible(f"{label}: {reason}", one_line=True) for reason in failure_lines(grade)
            )
        if len(failing) > MAX_LISTED_TRIALS:
            lines.append(f"… and {len(failing) - MAX_LISTED_TRIALS} more failing trials")
        return "\n".join(lines)
