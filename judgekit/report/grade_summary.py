"""Per-task summaries of grades, built while grades stream past (memory per task, not per run)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from judgekit.formats.grade import Grade, GraderResult

GRADERS = ("truth", "path", "state")


@dataclass
class GraderTally:
    """How many runs a grader judged and how many of them passed."""

    graded: int = 0
    passed: int = 0

    def add(self, result: GraderResult | None) -> None:
        if result is not None:
            self.graded += 1
            self.passed += result.passed

    def as_dict(self) -> dict[str, int] | None:
        return None if self.graded == 0 else {"passed": self.passed, "graded": self.graded}


@dataclass
class TaskSummary:
    task_id: str
    runs: int = 0
    passed: int = 0
    claimed_but_failed: int = 0
    graders: dict[str, GraderTally] = field(
        default_factory=lambda: {name: GraderTally() for name in GRADERS}
    )
    failures: list[tuple[str, str]] = field(default_factory=list)  # (run_id, first reason)
    failures_not_kept: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "runs": self.runs,
            "passed": self.passed,
            **{name: tally.as_dict() for name, tally in self.graders.items()},
            "claimed_success_but_failed": self.claimed_but_failed,
            "failures": [{"run_id": r, "reason": reason} for r, reason in self.failures],
            "failures_not_shown": self.failures_not_kept,
        }


class GradeSummary:
    """Tallies per task. ``keep_failures`` bounds the failing reasons kept per task."""

    def __init__(self, *, keep_failures: int = 20) -> None:
        self.keep_failures = keep_failures
        self.tasks: dict[str, TaskSummary] = {}

    def add(self, grade: Grade) -> None:
        summary = self.tasks.get(grade.task_id)
        if summary is None:
            summary = self.tasks[grade.task_id] = TaskSummary(grade.task_id)
        summary.runs += 1
        summary.passed += grade.passed
        for name in GRADERS:
            summary.graders[name].add(getattr(grade, name))
        if not grade.passed:
            summary.claimed_but_failed += grade.claimed_success is True
            if len(summary.failures) < self.keep_failures:
                summary.failures.append((grade.run_id, grade.first_failure or "failed"))
            else:
                summary.failures_not_kept += 1

    def consume(self, grades: Iterable[Grade]) -> Iterator[Grade]:
        """Tally each grade as it passes through."""
        for grade in grades:
            self.add(grade)
            yield grade

    @property
    def runs(self) -> int:
        return sum(s.runs for s in self.tasks.values())

    @property
    def passed(self) -> int:
        return sum(s.passed for s in self.tasks.values())

    def failing_tasks(self) -> list[str]:
        return [s.task_id for s in self.tasks.values() if s.passed < s.runs]

    def as_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "passed": self.passed,
            "tasks": [s.as_dict() for s in sorted(self.tasks.values(), key=lambda s: s.task_id)],
            "failing_tasks": sorted(self.failing_tasks()),
        }
