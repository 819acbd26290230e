"""The travel suite runs too: its stub's measured pass rates sit within their intervals."""

from __future__ import annotations

from pathlib import Path

from examples.travel import DESIGNED_PASS_RATES
from judgekit import load_tasks
from judgekit.stats.proportions import wilson_interval
from judgekit.trials.runner import TrialLimits, in_process_trials, load_agent, run_trials
from tests.conftest import REPO


def test_travel_pass_rates_match_the_design(tmp_path: Path) -> None:
    tasks = load_tasks(REPO / "tasks" / "travel.yaml")
    trial = in_process_trials(
        tasks, load_agent("examples.travel:agent"), TrialLimits(timeout_s=None)
    )
    summary = run_trials(tasks, trial, trials=2000, out_dir=tmp_path)
    for task_id, designed in DESIGNED_PASS_RATES.items():
        task = summary.tasks[task_id]
        low, high = wilson_interval(task.passed, task.runs)
        assert low <= designed <= high, (task_id, task.passed / task.runs, designed)
