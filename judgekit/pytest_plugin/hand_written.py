"""The helpers for a hand-written test file: :func:`task_cases` and
:func:`assert_task_passes`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from judgekit.errors import ConfigError
from judgekit.formats.run import Run
from judgekit.formats.task import Task, TaskSet
from judgekit.formats.task_files import load_task_files
from judgekit.pytest_plugin.agent_reference import load_agent
from judgekit.pytest_plugin.failures import TaskFailed
from judgekit.trials.in_process import Agent, run_in_process_trial
from judgekit.trials.runner import TrialLimits, load_tools
from judgekit.trials.task_outcome import (
    TaskOutcome,
    check_min_pass_rate,
    run_task_trials,
    task_name,
)
from judgekit.trials.world import Tool

if TYPE_CHECKING:
    from _pytest.mark import ParameterSet

__all__ = ["assert_task_passes", "task_cases"]

# Tasks handed out by task_cases, by identity, with the task set they came from: a Task
# does not carry its suite's tools, and assert_task_passes needs them. Strong references
# keep an id from being reused by another object.
_LOADED: dict[int, tuple[Task, TaskSet]] = {}


def task_cases(tasks_path: str | Path) -> list[ParameterSet]:
    """One ``pytest.param(task, id="<suite>/<task_id>")`` per task of a suite file or folder.

    Raises :class:`~judgekit.errors.DataError` naming the file, line and field when a suite
    is malformed, which pytest reports as a collection error of the test module.
    """
    tasks = load_task_files(tasks_path)
    cases = []
    for task in tasks:
        _LOADED[id(task)] = (task, tasks)
        cases.append(pytest.param(task, id=task_name(task)))
    return cases


def _suite_tools(task: Task) -> Mapping[str, Tool]:
    loaded = _LOADED.get(id(task))
    if loaded is not None and loaded[0] is task:
        tasks = loaded[1]
        return load_tools(tasks.suite_of(task))
    if task.suite is None:
        return {}  # built in code: no suite, so no suite tools to miss
    raise ConfigError(
        f"task {task_name(task)!r} did not come from task_cases(), so its suite's tools are "
        "unknown: take tasks from task_cases() or pass tools="
    )


def assert_task_passes(
    task: Task,
    agent: Agent | str,
    *,
    trials: int = 1,
    min_pass_rate: float = 1.0,
    tools: Mapping[str, Tool] | None = None,
    limits: TrialLimits | None = None,
) -> None:
    """Run ``agent`` on ``task`` for trials 1..``trials`` (each in a fresh world, seeded as
    ``judgekit run`` seeds it) and raise :class:`TaskFailed` (an ``AssertionError``) when
    passes / trials < ``min_pass_rate``.

    ``agent`` is the function or its ``"module:function"`` reference. ``tools`` default to
    those of the task's suite, known when the task came from :func:`task_cases`;
    ``limits`` to :class:`~judgekit.trials.runner.TrialLimits`'s defaults.
    """
    __tracebackhide__ = True  # the user's test line is the useful frame, not this one
    check_min_pass_rate(min_pass_rate)
    function = load_agent(agent, what="agent") if isinstance(agent, str) else agent
    suite_tools = _suite_tools(task) if tools is None else tools
    caps = limits or TrialLimits()

    def trial(task: Task, number: int) -> Run:
        return run_in_process_trial(
            function,
            task,
            trial=number,
            tools=suite_tools,
            max_tool_calls=caps.max_tool_calls,
            timeout_s=caps.timeout_s,
        )

    grades = run_task_trials(trial, task, trials)
    outcome = TaskOutcome(task_name(task), tuple(grades), min_pass_rate)
    if not outcome.passed:
        raise TaskFailed(outcome.message())
