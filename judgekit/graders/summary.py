"""Per-task summaries of grades, built while grades stream past (memory per task, not per run)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal, NamedTuple, TypeVar

from judgekit.formats.grade import Grade, GraderResult
from judgekit.graders.grade_rows import GradeRow
from judgekit.stats.proportions import pass_at_k, pass_hat_k, wilson_interval

GradeT = TypeVar("GradeT", Grade, GradeRow)

GRADERS = ("truth", "path", "state", "answer")
# Answer is new and set by few suites: reports show it only where some run was graded on it.
OPTIONAL_GRADERS = frozenset({"answer"})


# A grader's outcome on one run as grading workers send it back: passed, failed, None when
# not configured, or this when it had nothing to check.
NOTHING_TO_CHECK: Final = "nothing to check"
Outcome = bool | Literal["nothing to check"] | None


@dataclass
class GraderTally:
    """How many runs a grader judged and how many of them passed, and on how many it had
    nothing to check (neither graded nor passed)."""

    graded: int = 0
    passed: int = 0
    nothing_to_check: int = 0

    def add(self, result: GraderResult | None) -> None:
        if result is None:
            return
        passed = result.passed
        if passed is None:
            self.nothing_to_check += 1
        else:
            self.graded += 1
            self.passed += passed

    def add_passed(self, passed: Outcome) -> None:
        """Count one run's outcome: None when the grader did not judge it."""
        if passed == NOTHING_TO_CHECK:
            self.nothing_to_check += 1
        elif passed is not None:
            self.graded += 1
            self.passed += passed

    def as_dict(self) -> dict[str, int] | None:
        if self.graded == 0 and self.nothing_to_check == 0:
            return None
        counts = {"passed": self.passed, "graded": self.graded}
        if self.nothing_to_check:
            counts["nothing_to_check"] = self.nothing_to_check
        return counts


@dataclass
class Measure:
    """Mean and worst of a per-run number (turns, cost) over the runs that report it."""

    count: int = 0
    total: float = 0.0
    worst: float | None = None

    def add(self, value: float | None) -> None:
        if value is None:
            return
        self.count += 1
        self.total += value
        self.worst = value if self.worst is None else max(self.worst, value)

    @property
    def mean(self) -> float | None:
        return self.total / self.count if self.count else None

    def as_dict(self) -> dict[str, float | None]:
        return {"mean": self.mean, "worst": self.worst, "runs": self.count}


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def reliability(runs: int, passed: int, k: int) -> dict[str, Any]:
    """pass@1 with its Wilson 95% interval, pass@k and pass^k (None where undefined)."""
    # n < k is routine in a report (a task with fewer trials): shown as None, not warned.
    low, high = wilson_interval(passed, runs, replace_undefined_by=math.nan)
    return {
        "pass_at_1": _finite(passed / runs) if runs else None,
        "pass_at_1_ci": None if runs == 0 else [low, high],
        "k": k,
        "pass_at_k": _finite(pass_at_k(runs, passed, k, replace_undefined_by=math.nan)),
        "pass_hat_k": _finite(pass_hat_k(runs, passed, k, replace_undefined_by=math.nan)),
    }


@dataclass
class TaskSummary:
    task_id: str
    runs: int = 0
    passed: int = 0
    claimed_but_failed: int = 0
    graders: dict[str, GraderTally] = field(
        default_factory=lambda: {name: GraderTally() for name in GRADERS}
    )
    turns: Measure = field(default_factory=Measure)
    cost: Measure = field(default_factory=Measure)
    stop_reasons: Counter[str] = field(default_factory=Counter)
    tool_calls: int = 0
    tool_errors: int = 0
    violations: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (run_id, first reason)
    failures_not_kept: int = 0

    @property
    def tool_error_rate(self) -> float | None:
        return self.tool_errors / self.tool_calls if self.tool_calls else None

    def as_dict(self, *, k: int = 1) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "runs": self.runs,
            "passed": self.passed,
            **reliability(self.runs, self.passed, k),
            **{
                name: tally.as_dict()
                for name, tally in self.graders.items()
                if tally.graded or name not in OPTIONAL_GRADERS
            },
            "claimed_success_but_failed": self.claimed_but_failed,
            "violations": self.violations,
            "turns": self.turns.as_dict(),
            "cost_usd": self.cost.as_dict(),
            "stop_reasons": dict(sorted(self.stop_reasons.items())),
            "tool_calls": self.tool_calls,
            "tool_error_rate": self.tool_error_rate,
            "failures": [{"run_id": r, "reason": reason} for r, reason in self.failures],
            "failures_not_shown": self.failures_not_kept,
        }


def mean_over_tasks(tasks: Iterable[TaskSummary], k: int) -> dict[str, Any]:
    """The suite's pass@k and pass^k as τ-bench and the pass@k papers report them: the
    unweighted mean over tasks of each task's unbiased estimator (its own n and c).

    A task with fewer than k runs has no estimator at k; it is left out of both means and
    named in ``left_out`` (a 0 there would drag the mean down, a 1 push it up). With no task
    left, both means are None: undefined, never 0.
    """
    ordered = sorted(tasks, key=lambda s: s.task_id)
    counted = [task for task in ordered if task.runs >= k]
    return {
        "k": k,
        "tasks": len(counted),
        "left_out": [task.task_id for task in ordered if task.runs < k],
        "pass_at_k": _mean([pass_at_k(t.runs, t.passed, k) for t in counted]),
        "pass_hat_k": _mean([pass_hat_k(t.runs, t.passed, k) for t in counted]),
    }


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


class GradeFacts(NamedTuple):
    """What a summary reads of one grade: small, so grading workers send it back cheaply."""

    run_id: str
    task_id: str
    passed: bool
    graders: tuple[Outcome, ...]  # each of GRADERS: passed, None when not configured, …
    turns: int | None
    cost_usd: float | None
    stop_reason: str | None
    tool_calls: int
    tool_errors: int
    violations: bool
    claimed_success: bool | None
    first_failure: str | None  # None for a passing grade


def _passed(result: GraderResult | None) -> Outcome:
    if result is None:
        return None
    return NOTHING_TO_CHECK if result.passed is None else result.passed


def grade_facts(grade: Grade | GradeRow) -> GradeFacts:
    return GradeFacts(
        grade.run_id,
        grade.task_id,
        grade.passed,
        (_passed(grade.truth), _passed(grade.path), _passed(grade.state), _passed(grade.answer)),
        grade.turns,
        grade.cost_usd,
        grade.stop_reason,
        grade.tool_calls,
        grade.tool_errors,
        bool(grade.violations),
        grade.claimed_success,
        None if grade.passed else grade.first_failure,
    )


class GradeSummary:
    """Tallies per task. ``keep_failures`` bounds the failing reasons kept per task."""

    def __init__(self, *, keep_failures: int = 20) -> None:
        self.keep_failures = keep_failures
        self.tasks: dict[str, TaskSummary] = {}

    def add(self, grade: Grade | GradeRow) -> None:
        # Reads the grade itself: building its facts first (add_facts) would double the cost
        # of tallying, which grading pays once per run.
        summary = self.tasks.get(grade.task_id)
        if summary is None:
            summary = self.tasks[grade.task_id] = TaskSummary(grade.task_id)
        summary.runs += 1
        summary.passed += grade.passed
        graders = summary.graders
        graders["truth"].add(grade.truth)
        graders["path"].add(grade.path)
        graders["state"].add(grade.state)
        graders["answer"].add(grade.answer)
        self._add_route(summary, grade, bool(grade.violations))

    def add_facts(self, grade: GradeFacts) -> None:
        """Tally one grade from its facts (what grading workers send back)."""
        summary = self.tasks.get(grade.task_id)
        if summary is None:
            summary = self.tasks[grade.task_id] = TaskSummary(grade.task_id)
        summary.runs += 1
        summary.passed += grade.passed
        for name, passed in zip(GRADERS, grade.graders, strict=True):
            summary.graders[name].add_passed(passed)
        self._add_route(summary, grade, grade.violations)

    def _add_route(
        self, summary: TaskSummary, grade: Grade | GradeRow | GradeFacts, violated: bool
    ) -> None:
        """What add and add_facts tally alike: turns, cost, stop reason, calls, failures."""
        summary.turns.add(grade.turns)
        summary.cost.add(grade.cost_usd)
        summary.stop_reasons[grade.stop_reason or "completed"] += 1
        summary.tool_calls += grade.tool_calls
        summary.tool_errors += grade.tool_errors
        summary.violations += violated
        if not grade.passed:
            summary.claimed_but_failed += grade.claimed_success is True
            if len(summary.failures) < self.keep_failures:
                summary.failures.append((grade.run_id, grade.first_failure or "failed"))
            else:
                summary.failures_not_kept += 1

    def consume(self, grades: Iterable[GradeT]) -> Iterator[GradeT]:
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

    def default_k(self) -> int:
        """The k shown when none is asked for: the fewest runs any task has (at least 1)."""
        return max(1, min((s.runs for s in self.tasks.values()), default=1))

    def as_dict(self, *, k: int | None = None) -> dict[str, Any]:
        chosen = k if k is not None else self.default_k()
        headline = reliability(self.runs, self.passed, 1)
        return {
            "runs": self.runs,
            "passed": self.passed,
            "pass_at_1": headline["pass_at_1"],
            "pass_at_1_ci": headline["pass_at_1_ci"],
            "k": chosen,
            "mean_over_tasks": mean_over_tasks(self.tasks.values(), chosen),
            "tasks": [
                s.as_dict(k=chosen) for s in sorted(self.tasks.values(), key=lambda s: s.task_id)
            ],
            "failing_tasks": sorted(self.failing_tasks()),
        }
