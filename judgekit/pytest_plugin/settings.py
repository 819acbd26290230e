"""The ``--judgekit-*`` options: declared, read and checked before any test is collected."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from judgekit.formats.grade import results_path
from judgekit.trials.trial_files import RUNS

__all__ = ["Settings", "add_options", "check_paths", "read_settings"]


@dataclass(frozen=True)
class Settings:
    """The ``--judgekit-*`` options, checked, with paths made absolute."""

    tasks_path: Path
    agent: str
    trials: int
    min_pass_rate: float
    baseline: Path | None
    out_dir: Path | None


def add_options(parser: pytest.Parser) -> None:
    """Declare the options, grouped under judgekit in `pytest --help`."""
    group = parser.getgroup("judgekit", "judgekit: one test per task of an agent task suite")
    group.addoption(
        "--judgekit-tasks",
        metavar="PATH",
        help="task suite file or folder: adds one test per task, judgekit[<suite>/<task_id>]",
    )
    group.addoption(
        "--judgekit-agent",
        metavar="MODULE:FUNCTION",
        help="in-process agent agent(task, world) -> str run on every task",
    )
    group.addoption(
        "--judgekit-trials", metavar="N", type=int, default=1, help="trials per task (default 1)"
    )
    group.addoption(
        "--judgekit-min-pass-rate",
        metavar="R",
        type=float,
        default=1.0,
        help="a task passes when passes/N >= R (default 1.0)",
    )
    group.addoption(
        "--judgekit-baseline",
        metavar="FILE",
        help="baseline results.jsonl: adds judgekit[regression], failing when worse",
    )
    group.addoption(
        "--judgekit-out",
        metavar="DIR",
        help="also write runs.jsonl, results.jsonl and results.csv to DIR",
    )


def read_settings(config: pytest.Config) -> Settings | None:
    """The plugin's settings, ``None`` when ``--judgekit-tasks`` is absent; a misuse raises
    ``pytest.UsageError`` (exit code 4, one line, no traceback)."""
    here = config.invocation_params.dir
    tasks, agent = config.getoption("judgekit_tasks"), config.getoption("judgekit_agent")
    baseline, out = config.getoption("judgekit_baseline"), config.getoption("judgekit_out")
    if tasks is None:
        for name, value in (("agent", agent), ("baseline", baseline), ("out", out)):
            if value is not None:
                raise pytest.UsageError(f"--judgekit-{name} needs --judgekit-tasks")
        return None
    if agent is None:
        raise pytest.UsageError("--judgekit-tasks needs --judgekit-agent module:function")
    trials, rate = config.getoption("judgekit_trials"), config.getoption("judgekit_min_pass_rate")
    if trials < 1:
        raise pytest.UsageError(f"--judgekit-trials must be at least 1, got {trials}")
    if not 0 <= rate <= 1:
        raise pytest.UsageError(f"--judgekit-min-pass-rate must be between 0 and 1, got {rate}")
    return Settings(
        tasks_path=here / tasks,
        agent=agent,
        trials=trials,
        min_pass_rate=rate,
        baseline=None if baseline is None else here / baseline,
        out_dir=None if out is None else here / out,
    )


def check_paths(settings: Settings) -> None:
    """Refuse at start-up what would otherwise fail every test the same way."""
    if settings.baseline is not None:
        if not settings.baseline.exists():
            raise pytest.UsageError(f"--judgekit-baseline {settings.baseline}: no such file")
        results_path(settings.baseline)  # a folder without results.jsonl raises DataError
    if settings.out_dir is not None and (settings.out_dir / RUNS).exists():
        raise pytest.UsageError(
            f"--judgekit-out: {settings.out_dir / RUNS} exists; choose another folder"
        )
