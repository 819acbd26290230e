"""Step 1: each suite's trials, graded deterministically, and the measured pass rates set
against the rates the stub agents were designed with."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from judgekit._util.number_format import bracketed_interval, mean_count, percent, rate, setting
from judgekit._util.terminal_text import visible_markup
from judgekit.demo.common import TRIALS, DemoSuite, K, say
from judgekit.errors import ConfigError
from judgekit.formats.run import Run, load_runs
from judgekit.formats.task import TaskSet, load_tasks
from judgekit.graders.summary import GradeSummary
from judgekit.graders.table import print_grade_table
from judgekit.stats.proportions import wilson_interval
from judgekit.trials.runner import TrialLimits, in_process_trials, load_agent, run_trials

CONFIDENCE = 0.95


@dataclass(frozen=True)
class SuiteRun:
    """One suite's trials: where they were written, their grades and the truth per run."""

    suite: DemoSuite
    tasks_file: Path
    tasks: TaskSet
    folder: Path
    summary: GradeSummary
    truth: dict[str, bool]  # run id -> passed, by the deterministic graders

    @property
    def runs_file(self) -> Path:
        return self.folder / "runs.jsonl"

    @property
    def results_file(self) -> Path:
        return self.folder / "results.jsonl"

    def runs(self) -> list[Run]:
        return list(load_runs(self.runs_file))


@dataclass(frozen=True)
class RateCheck:
    """A task's measured pass@1 against the rate its stub agent was designed with."""

    task_id: str
    designed: float
    passed: int
    runs: int
    interval: tuple[float, float]  # the task's own 95% Wilson interval
    joint: tuple[float, float]  # Bonferroni-widened, so all tasks' hold at 95% together

    @property
    def inside(self) -> bool:
        return self.interval[0] <= self.designed <= self.interval[1]

    @property
    def inside_joint(self) -> bool:
        return self.joint[0] <= self.designed <= self.joint[1]


def run_suite(
    suite: DemoSuite, root: Path, folder: Path, *, trials: int = TRIALS, first_trial: int = 1
) -> SuiteRun:
    """Run every task of ``suite`` for ``trials`` trials into ``folder``, silently; the
    trials are numbered (and seeded) from ``first_trial`` on."""
    tasks_file = suite.tasks_file(root)
    tasks = load_tasks(tasks_file)
    truth: dict[str, bool] = {}
    trial = in_process_trials(tasks, load_agent(suite.agent), TrialLimits())
    offset = first_trial - 1
    summary = run_trials(
        tasks,
        lambda task, number: trial(task, number + offset),
        trials=trials,
        out_dir=folder,
        on_trial=lambda run, grade: truth.__setitem__(run.run_id, grade.passed),
    )
    return SuiteRun(suite, tasks_file, tasks, folder, summary, truth)


def print_suite(run: SuiteRun, console: Console) -> None:
    """The per-task report ``judgekit run`` prints, then where it was written."""
    print_grade_table(run.summary, console, show_reasons=False, k=K)
    say(
        console,
        f"wrote {visible_markup(str(run.runs_file))}, {visible_markup(str(run.results_file))}, "
        f"{visible_markup(str(run.folder / 'results.csv'))}",
    )


def designed_rates(suite: DemoSuite) -> dict[str, float]:
    """The stub agent's ``DESIGNED_PASS_RATES``: task id -> the pass rate its slips give."""
    rates = getattr(importlib.import_module(suite.module), "DESIGNED_PASS_RATES", None)
    if not isinstance(rates, Mapping):
        raise ConfigError(f"{suite.module} has no DESIGNED_PASS_RATES dict")
    return {str(task_id): float(rate) for task_id, rate in rates.items()}


def rate_checks(run: SuiteRun, designed: Mapping[str, float], family: int) -> list[RateCheck]:
    """Each task's check; ``family`` is how many tasks are checked together (both suites),
    which widens the joint intervals."""
    joint_confidence = 1 - (1 - CONFIDENCE) / family
    checks: list[RateCheck] = []
    for task in run.tasks:
        tally = run.summary.tasks.get(task.id)
        if task.id not in designed or tally is None:
            raise ConfigError(f"{run.suite.module} designs no pass rate for task {task.id}")
        checks.append(
            RateCheck(
                task_id=task.id,
                designed=designed[task.id],
                passed=tally.passed,
                runs=tally.runs,
                interval=wilson_interval(tally.passed, tally.runs, confidence=CONFIDENCE),
                joint=wilson_interval(tally.passed, tally.runs, confidence=joint_confidence),
            )
        )
    return checks


def print_rate_checks(suite: DemoSuite, checks: Sequence[RateCheck], console: Console) -> None:
    say(
        console,
        f"[bold yellow]simulation[/]: {suite.agent} is a seeded stub whose slips give designed "
        "pass rates, so each measured pass@1 (95% Wilson interval) can be checked against the "
        "truth:",
    )
    width = max(len(check.task_id) for check in checks)
    for check in checks:
        low, high = check.interval
        outside = "" if check.inside else "  [red]outside its 95% interval[/]"
        say(
            console,
            f"  {visible_markup(check.task_id):<{width}}  designed rate "
            f"{_designed(check.designed)}; measured {rate(check.passed / check.runs)} "
            f"{bracketed_interval(low, high, decimals=2)}{outside}",
        )


def _designed(value: float) -> str:
    """Two decimals, or every one a designed rate has (0.6375 is not 0.64)."""
    return rate(value) if round(value, 2) == value else setting(value)


def print_rate_summary(checks: Sequence[RateCheck], console: Console) -> None:
    """How many designed rates the intervals hold, and what chance alone explains."""
    inside = sum(check.inside for check in checks)
    joint = sum(check.inside_joint for check in checks)
    n = len(checks)
    expected = mean_count(n * (1 - CONFIDENCE), decimals=2)
    level = percent(1 - (1 - CONFIDENCE) / n, decimals=2)
    say(
        console,
        f"designed rate inside its task's 95% interval: {inside} of {n} tasks. A 95% interval "
        f"misses 1 time in 20 by chance ({expected} misses expected in {n}); "
        f"the Bonferroni intervals ({level} each), which hold all {n} rates at once with "
        f"95% confidence, contain {joint} of {n}.",
    )
