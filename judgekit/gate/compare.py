"""The regression gate: is a candidate's result set worse than the baseline's, task by task?

A task fails the gate when

* its pass rate dropped by more than noise: the one-sided pooled two-proportion z-test of
  "candidate lower than baseline" gives p < ``alpha``;
* its mean cost or mean turns rose by more than the tolerance (relative, 0.2 = +20%) while
  the pass rate stayed flat, the hidden regression of the same pass rate for double the
  bill. "Flat" means neither a significant drop (one-sided p ≥ alpha) nor a significant
  rise (two-sided p ≥ alpha), so a cost rise that bought a real improvement is reported
  as a note, not as a regression. A mean is taken over the runs that report the value; a
  side with none gives ``None`` and the rule is skipped, with a note;
* it is in the baseline but missing from the candidate: a gate that passes when the
  failing task was dropped is worthless. A task only in the candidate is informational.

A suite-level comparison (all runs of each side pooled, whatever their task) is reported
too, but the verdict is per task: a blended number hides a task that broke behind one that
improved, and runs of different tasks are not one binomial sample.

Why a two-proportion test rather than "the candidate's Wilson upper bound is below the
baseline's point estimate": that rule treats the baseline's rate as exact, ignoring the
baseline's own sampling noise, so it fires at about 1.96/√2 ≈ 1.4 standard errors of the
difference instead of 1.645, and its false-alarm rate depends on n and on the rate itself.
Computed exactly from the binomial distributions (one task, same true rate on both sides,
equal n), the Wilson rule raises false alarms on 11.1% of stable tasks at p = 0.7, n = 20,
9.5% at n = 100, and 20.7% at p = 0.9, n = 20; the pooled one-sided test at alpha = 0.05
stays at 5.2%, 5.1% and 5.2%. One-sided, because the gate asks one question (did it get
worse?) and spends all of alpha on it.

Measured by simulation (``tests/gate/test_compare.py``: 2,000 stable tasks per case, seeded, run
through :func:`compare_results` itself), the false-alarm rate of the pass-rate rule at
alpha = 0.05 with a true rate of 0.7 on both sides is 6.2% at n = 20 runs per side and 5.5%
at n = 100 (simulation error ±0.5 points); the exact rates are 5.23% and 5.14%, slightly
above alpha because of the normal approximation and the discreteness of small counts. Its
power to catch a drop from 0.8 to 0.5 with n = 30 runs per side is 79.6% (exactly 79.2%);
at n = 20 it is only 65% (exact), so gate on at least 30 trials per task.

Several tasks mean several tests: with ``alpha`` per task, a suite of T stable tasks would
raise at least one false alarm with probability about 1 - (1 - alpha)^T (40% for T = 10).
So by default (``correction="holm"``) the pass-rate drops are judged by Holm's step-down
procedure, which keeps the chance of any false alarm across the suite at most ``alpha``
and is uniformly more powerful than Bonferroni's ``alpha / T``; with one task it is the
plain test. ``correction="none"`` judges each task at ``alpha`` alone. The cost and
turns rule is a tolerance on means, not a significance test: choose a tolerance above the
run-to-run wobble of your agent's mean cost.

>>> from judgekit.formats.grade import Grade
>>> base = [Grade(run_id=f"b{i}", task_id="t", passed=i < 16, cost_usd=0.004) for i in range(20)]
>>> cand = [Grade(run_id=f"c{i}", task_id="t", passed=i < 16, cost_usd=0.009) for i in range(20)]
>>> report = compare_results(base, cand)
>>> report.passed, report.tasks[0].reasons
(False, ['mean cost +125% (0.004 → 0.009) with the pass rate flat'])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from judgekit._util.number_format import p_equation, rate, relative_change
from judgekit.errors import DataError
from judgekit.formats.grade import Grade
from judgekit.stats.multiple import holm_rejections
from judgekit.stats.proportions import two_proportion_test

__all__ = [
    "Comparison",
    "GateReport",
    "SideSummary",
    "TaskResult",
    "compare_results",
]


class SideSummary(BaseModel):
    """One side's runs of a task (or of the whole suite)."""

    model_config = ConfigDict(frozen=True)

    n: int
    passes: int
    rate: float
    mean_cost_usd: float | None
    mean_turns: float | None


class Comparison(BaseModel):
    """Baseline against candidate: what moved and how surely.

    ``difference`` is candidate minus baseline pass rate. ``p_value`` is the one-sided test
    of "candidate lower"; ``p_value_two_sided`` decides whether the rate is flat.
    ``cost_change`` and ``turns_change`` are relative (1.0 = doubled), ``None`` when a side
    reports no value, ``inf`` when the baseline mean is 0 and the candidate's is not (JSON
    cannot hold inf: it is written as null there, and the reason says "from 0").
    """

    model_config = ConfigDict(frozen=True)

    baseline: SideSummary | None
    candidate: SideSummary | None
    difference: float | None = None
    p_value: float | None = None
    p_value_two_sided: float | None = None
    cost_change: float | None = None
    turns_change: float | None = None


class TaskResult(Comparison):
    """One task's comparison with its verdict: ``reasons`` say why it fails, ``notes`` what
    else moved without failing it."""

    task_id: str
    status: Literal["compared", "added", "removed"]
    verdict: Literal["pass", "fail"]
    reasons: list[str]
    notes: list[str]


class GateReport(BaseModel):
    """The gate's answer: ``passed`` is false when any task fails."""

    model_config = ConfigDict(frozen=True)

    passed: bool
    failing_tasks: list[str]
    alpha: float
    correction: Literal["holm", "none"]
    cost_tolerance: float
    turns_tolerance: float
    tasks: list[TaskResult]
    suite: Comparison


@dataclass
class _Tally:
    """Running sums of one side's runs: memory grows with the tasks, not with the runs."""

    n: int = 0
    passes: int = 0
    cost_sum: float = 0.0
    cost_runs: int = 0
    turns_sum: int = 0
    turns_runs: int = 0

    def add(self, grade: Grade) -> None:
        self.n += 1
        self.passes += grade.passed
        if grade.cost_usd is not None:
            self.cost_sum += grade.cost_usd
            self.cost_runs += 1
        if grade.turns is not None:
            self.turns_sum += grade.turns
            self.turns_runs += 1

    def summary(self) -> SideSummary:
        return SideSummary(
            n=self.n,
            passes=self.passes,
            rate=self.passes / self.n,
            mean_cost_usd=self.cost_sum / self.cost_runs if self.cost_runs else None,
            mean_turns=self.turns_sum / self.turns_runs if self.turns_runs else None,
        )


def _tally(grades: Iterable[Grade], side: str) -> tuple[dict[str, _Tally], _Tally]:
    """Per-task tallies and the pooled one, in one pass over a possibly streamed side."""
    per_task: dict[str, _Tally] = {}
    pooled = _Tally()
    for grade in grades:
        per_task.setdefault(grade.task_id, _Tally()).add(grade)
        pooled.add(grade)
    if pooled.n == 0:
        raise DataError(f"the {side} has no graded runs")
    return per_task, pooled


def _relative_change(before: float | None, after: float | None) -> float | None:
    if before is None or after is None:
        return None
    if before == 0:
        return 0.0 if after == 0 else math.inf
    return (after - before) / before


def _compare(baseline: SideSummary, candidate: SideSummary) -> Comparison:
    test = two_proportion_test(candidate.passes, candidate.n, baseline.passes, baseline.n)
    return Comparison(
        baseline=baseline,
        candidate=candidate,
        difference=candidate.rate - baseline.rate,
        p_value=test.p_value_smaller,
        p_value_two_sided=test.p_value,
        cost_change=_relative_change(baseline.mean_cost_usd, candidate.mean_cost_usd),
        turns_change=_relative_change(baseline.mean_turns, candidate.mean_turns),
    )


@dataclass(frozen=True)
class _Spend:
    """One of the spend measures the hidden-regression rule watches."""

    label: str  # as the messages name it
    digits: str  # format of the means in messages
    mean: Callable[[SideSummary], float | None]
    change: Callable[[Comparison], float | None]


_COST = _Spend("cost", ".4g", lambda s: s.mean_cost_usd, lambda c: c.cost_change)
_TURNS = _Spend("turns", ".1f", lambda s: s.mean_turns, lambda c: c.turns_change)


def _spend_messages(
    spend: _Spend, c: Comparison, tolerance: float, *, flat: bool, rose: bool
) -> tuple[list[str], list[str]]:
    """(reasons, notes) for one spend measure of a compared task."""
    assert c.baseline is not None and c.candidate is not None
    before, after = spend.mean(c.baseline), spend.mean(c.candidate)
    if (before is None) != (after is None):
        only = "baseline" if after is None else "candidate"
        return [], [f"mean {spend.label} not compared: only the {only} reports it"]
    change = spend.change(c)
    if change is None or change <= tolerance or not (flat or rose):
        return [], []
    assert before is not None and after is not None
    means = f"{before:{spend.digits}} → {after:{spend.digits}}"
    moved = f"mean {spend.label} {relative_change(change)} ({means})"
    if flat:
        return [f"{moved} with the pass rate flat"], []
    # A rise that bought a real improvement in the pass rate is a trade, not a regression.
    return [], [f"{moved}, not a regression: the pass rate rose"]


def _judge_compared(
    task_id: str,
    c: Comparison,
    alpha: float,
    cost_tolerance: float,
    turns_tolerance: float,
    *,
    dropped: bool,
) -> TaskResult:
    assert c.baseline is not None and c.candidate is not None
    assert c.p_value is not None and c.p_value_two_sided is not None
    assert c.difference is not None
    rates = f"{rate(c.baseline.rate)} → {rate(c.candidate.rate)}"
    rose = c.p_value_two_sided < alpha and c.difference > 0
    flat = not dropped and c.p_value_two_sided >= alpha
    reasons = [f"pass-rate drop {rates} ({p_equation(c.p_value)})"] if dropped else []
    notes = [f"pass-rate rise {rates} ({p_equation(c.p_value_two_sided)})"] if rose else []
    for spend, tolerance in ((_COST, cost_tolerance), (_TURNS, turns_tolerance)):
        more_reasons, more_notes = _spend_messages(spend, c, tolerance, flat=flat, rose=rose)
        reasons += more_reasons
        notes += more_notes
    return TaskResult(
        **dict(c),
        task_id=task_id,
        status="compared",
        verdict="fail" if reasons else "pass",
        reasons=reasons,
        notes=notes,
    )


def _removed(task_id: str, baseline: SideSummary) -> TaskResult:
    reason = (
        f"missing from the candidate (baseline pass rate {rate(baseline.rate)} "
        f"over {baseline.n} runs)"
    )
    return TaskResult(
        baseline=baseline,
        candidate=None,
        task_id=task_id,
        status="removed",
        verdict="fail",
        reasons=[reason],
        notes=[],
    )


def _added(task_id: str, candidate: SideSummary) -> TaskResult:
    note = f"new in the candidate: pass rate {rate(candidate.rate)} over {candidate.n} runs"
    return TaskResult(
        baseline=None,
        candidate=candidate,
        task_id=task_id,
        status="added",
        verdict="pass",
        reasons=[],
        notes=[note],
    )


def _check_options(alpha: float, cost_tolerance: float, turns_tolerance: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    for name, value in (("cost_tolerance", cost_tolerance), ("turns_tolerance", turns_tolerance)):
        if not value >= 0:
            raise ValueError(f"{name} must be ≥ 0, got {value!r}")


def compare_results(
    baseline: Iterable[Grade],
    candidate: Iterable[Grade],
    *,
    alpha: float = 0.05,
    cost_tolerance: float = 0.2,
    turns_tolerance: float = 0.2,
    correction: Literal["holm", "none"] = "holm",
) -> GateReport:
    """Compare two result sets task by task (see the module docstring for the rules).

    Each side is read once, so generators such as :func:`~judgekit.formats.grade.load_results` stream. A side with
    no runs raises :class:`~judgekit.errors.DataError`; an ``alpha`` outside (0, 1) or a
    negative tolerance raises ``ValueError``.

    >>> from judgekit.formats.grade import Grade
    >>> base = [Grade(run_id=f"b{i}", task_id="t", passed=i < 16) for i in range(30)]
    >>> cand = [Grade(run_id=f"c{i}", task_id="t", passed=i < 8) for i in range(30)]
    >>> compare_results(base, cand).tasks[0].reasons
    ['pass-rate drop 0.53 → 0.27 (p = 0.018)']
    """
    _check_options(alpha, cost_tolerance, turns_tolerance)
    base_tasks, base_all = _tally(baseline, "baseline")
    cand_tasks, cand_all = _tally(candidate, "candidate")
    comparisons = {
        task_id: _compare(base_tasks[task_id].summary(), cand_tasks[task_id].summary())
        for task_id in base_tasks.keys() & cand_tasks.keys()
    }
    dropped = _dropped(comparisons, alpha, correction)
    tasks: list[TaskResult] = []
    for task_id in sorted(base_tasks.keys() | cand_tasks.keys()):
        base, cand = base_tasks.get(task_id), cand_tasks.get(task_id)
        if cand is None:
            assert base is not None
            tasks.append(_removed(task_id, base.summary()))
        elif base is None:
            tasks.append(_added(task_id, cand.summary()))
        else:
            compared = comparisons[task_id]
            tolerances = (cost_tolerance, turns_tolerance)
            judged = _judge_compared(
                task_id, compared, alpha, *tolerances, dropped=task_id in dropped
            )
            tasks.append(judged)
    failing = [t.task_id for t in tasks if t.verdict == "fail"]
    return GateReport(
        passed=not failing,
        failing_tasks=failing,
        alpha=alpha,
        correction=correction,
        cost_tolerance=cost_tolerance,
        turns_tolerance=turns_tolerance,
        tasks=tasks,
        suite=_compare(base_all.summary(), cand_all.summary()),
    )


def _dropped(
    comparisons: dict[str, Comparison], alpha: float, correction: Literal["holm", "none"]
) -> set[str]:
    """The tasks whose pass-rate drop is significant, across tasks by Holm or each alone."""
    p_values = {t: c.p_value for t, c in comparisons.items() if c.p_value is not None}
    if correction == "holm":
        return holm_rejections(p_values, alpha=alpha)
    return {t for t, p in p_values.items() if p < alpha}
