"""A task suite as pytest tests: one test per task, and a regression test against a baseline.

The plugin is registered through the ``pytest11`` entry point, so installing judgekit is
enough (``-p no:judgekit`` turns it off). It does nothing until ``--judgekit-tasks`` is
given; then it adds one test per task, named ``judgekit[<suite>/<task_id>]``::

    pytest --judgekit-tasks tasks/shop.yaml --judgekit-agent examples.shop:agent \\
        --judgekit-trials 20 --judgekit-min-pass-rate 0.7 \\
        --judgekit-baseline main/results.jsonl --judgekit-out pr/

Options:

``--judgekit-tasks PATH``
    a suite file, or a folder of them.
``--judgekit-agent module:function``
    the in-process agent ``agent(task, world) -> str`` (the working directory is importable).
``--judgekit-trials N``
    trials per task, numbered 1..N and seeded exactly as ``judgekit run`` seeds them
    (default 1).
``--judgekit-min-pass-rate R``
    a task's test passes when passes / N ≥ R (default 1.0: every trial must pass).
``--judgekit-baseline FILE``
    a ``results.jsonl`` (or a folder holding one); adds the test ``judgekit[regression]``,
    which fails when :func:`judgekit.gate.compare.compare_results` fails the candidate against it:
    a task's pass rate significantly lower (one-sided two-proportion test, alpha 0.05), its
    mean cost or turns up by more than 20% at a flat pass rate, or a baseline task missing.
    It is the verdict ``judgekit gate`` gives, so the two never disagree.
``--judgekit-out DIR``
    also write ``runs.jsonl``, ``results.jsonl`` and ``results.csv`` there, exactly as
    ``judgekit run --out DIR`` does (the next baseline). The whole suite then runs once, on
    the first judgekit test, so the files are complete even under ``-k``.

A failing task's test prints no traceback, only why, one line per failing grader::

    shop/refund_full: pass rate 13/20 = 0.65, required ≥ 0.7
    trial 2: path: issue_refund called 2 times, max_calls is 1

The tests are added after collection, beside whatever pytest collected, so they appear
even when no test path is given. In a project whose ``testpaths`` hold other tests, keep
only these with ``-m judgekit`` (every generated test carries that marker) or ``-k``.
Each task's trials run once per session: the regression test reuses them.

Teams who prefer their own test file use two helpers instead of the options::

    import pytest

    from judgekit.pytest_plugin import assert_task_passes, task_cases
    from my_agent import agent


    @pytest.mark.parametrize("task", task_cases("tasks/shop.yaml"))
    def test_task(task):
        assert_task_passes(task, agent, trials=20, min_pass_rate=0.7)

:func:`task_cases` gives one ``pytest.param`` per task with the id ``<suite>/<task_id>``;
:func:`assert_task_passes` runs the trials and raises ``AssertionError`` with the message
above.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from judgekit._util.references import UnresolvedReference, resolve_reference
from judgekit._util.terminal_text import visible
from judgekit.errors import ConfigError, JudgekitError
from judgekit.formats.grade import Grade
from judgekit.formats.run import Run
from judgekit.formats.task import Task, TaskSet
from judgekit.formats.task_files import load_task_files
from judgekit.gate.compare import GateReport, compare_results, load_results, results_path
from judgekit.trials.in_process import Agent, run_in_process_trial
from judgekit.trials.recorder import RUNS
from judgekit.trials.runner import (
    TrialFunction,
    TrialLimits,
    in_process_trials,
    load_tools,
    run_trials,
)
from judgekit.trials.task_outcome import (
    TaskOutcome,
    check_min_pass_rate,
    run_task_trials,
    task_name,
)
from judgekit.trials.world import Tool

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle
    from _pytest.mark import ParameterSet

__all__ = [
    "RegressionFailed",
    "TaskFailed",
    "assert_task_passes",
    "task_cases",
]

MARKER = "judgekit"
REGRESSION_NAME = "judgekit[regression]"
ALPHA = 0.05


class TaskFailed(AssertionError):
    """A task's pass rate is below the required rate; the message says which trials failed
    and why. An ``AssertionError``, so any test runner reports it as a test failure."""


class RegressionFailed(AssertionError):
    """The candidate's results are worse than the baseline's (the gate said no)."""


# --- helpers for hand-written test files ----------------------------------------------

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
    function = _load_agent(agent, what="agent") if isinstance(agent, str) else agent
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


# --- the plugin -----------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """The ``--judgekit-*`` options, checked, with paths made absolute."""

    tasks_path: Path
    agent: str
    trials: int
    min_pass_rate: float
    baseline: Path | None
    out_dir: Path | None


def pytest_addoption(parser: pytest.Parser) -> None:
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


class SuiteRun:
    """The session's trials: each task's trials run once, on first demand, and are kept for
    the regression test (and written to ``--judgekit-out`` when given)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.tasks = load_task_files(settings.tasks_path)
        self._trial: TrialFunction = in_process_trials(
            self.tasks, _load_agent(settings.agent, what="--judgekit-agent")
        )
        self._grades: dict[str, list[Grade]] = {}

    def grades(self, task: Task) -> list[Grade]:
        if task.id not in self._grades:
            if self.settings.out_dir is not None:
                self._run_recorded(self.settings.out_dir)
            else:
                self._grades[task.id] = run_task_trials(self._trial, task, self.settings.trials)
        return self._grades[task.id]

    def _run_recorded(self, out_dir: Path) -> None:
        """Every task through ``run_trials``, so the files match ``judgekit run``'s, holding
        the folder's lock as ``judgekit run`` does."""
        from judgekit._util.folder_lock import output_folder_lock

        collected: dict[str, list[Grade]] = {task.id: [] for task in self.tasks}
        with output_folder_lock(out_dir):
            run_trials(
                self.tasks,
                self._trial,
                trials=self.settings.trials,
                out_dir=out_dir,
                on_trial=lambda _run, grade: collected[grade.task_id].append(grade),
            )
        self._grades.update(collected)

    def outcome(self, task: Task) -> TaskOutcome:
        return TaskOutcome(task_name(task), tuple(self.grades(task)), self.settings.min_pass_rate)

    def all_grades(self) -> list[Grade]:
        return [grade for task in self.tasks for grade in self.grades(task)]


_SUITE_RUN = pytest.StashKey[SuiteRun]()


def _load_agent(reference: str, *, what: str) -> Agent:
    """The agent function; errors name ``what`` (the pytest option, not the CLI's --agent)."""
    try:
        agent = resolve_reference(reference, what=what)
    except UnresolvedReference as exc:
        raise ConfigError(str(exc)) from None
    if not callable(agent):
        raise ConfigError(f"{what} {reference!r} is not a function agent(task, world) -> str")
    return agent  # type: ignore[no-any-return]


def _check_paths(settings: Settings) -> None:
    """Refuse at start-up what would otherwise fail every test the same way."""
    if settings.baseline is not None:
        if not settings.baseline.exists():
            raise pytest.UsageError(f"--judgekit-baseline {settings.baseline}: no such file")
        results_path(settings.baseline)  # a folder without results.jsonl raises DataError
    if settings.out_dir is not None and (settings.out_dir / RUNS).exists():
        raise pytest.UsageError(
            f"--judgekit-out: {settings.out_dir / RUNS} exists; choose another folder"
        )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: a test generated from a judgekit task suite")
    settings = read_settings(config)
    if settings is None:
        return
    try:
        _check_paths(settings)
        config.stash[_SUITE_RUN] = SuiteRun(settings)
    except JudgekitError as exc:  # a bad suite, agent or tools reference: say which, briefly
        raise pytest.UsageError(str(exc)) from None


def pytest_report_header(config: pytest.Config) -> str | None:
    suite_run = config.stash.get(_SUITE_RUN, None)
    if suite_run is None:
        return None
    s = suite_run.settings
    return (
        f"judgekit: {len(suite_run.tasks)} tasks from {s.tasks_path}, agent {s.agent}, "
        f"{s.trials} trials each, min pass rate {s.min_pass_rate:g}"
        + (f", baseline {s.baseline}" if s.baseline else "")
    )


# tryfirst: the items must exist before -k, -m and deselection look at the list.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    suite_run = config.stash.get(_SUITE_RUN, None)
    if suite_run is not None:
        items.extend(_items(session, suite_run))


def _items(session: pytest.Session, suite_run: SuiteRun) -> Iterable[pytest.Item]:
    for task in suite_run.tasks:
        name = f"judgekit[{task_name(task)}]"
        # An explicit nodeid: under the session the default would be "::judgekit[...]".
        yield TaskItem.from_parent(session, name=name, nodeid=name, task=task, suite_run=suite_run)
    if suite_run.settings.baseline is not None:
        # Last, so the task tests have already run the trials it compares.
        yield RegressionItem.from_parent(
            session, name=REGRESSION_NAME, nodeid=REGRESSION_NAME, suite_run=suite_run
        )


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


def regression_message(report: GateReport, baseline: Path) -> str:
    """One line per reason a task failed the gate, under a line saying against what."""
    lines = [
        f"worse than the baseline {baseline} in {len(report.failing_tasks)} of "
        f"{len(report.tasks)} tasks (pass rates: one-sided two-proportion test, alpha "
        f"{report.alpha:g}; cost and turns: +{report.cost_tolerance:.0%} and "
        f"+{report.turns_tolerance:.0%} at a flat pass rate)"
    ]
    for task in report.tasks:
        if task.verdict == "fail":
            lines.extend(
                visible(f"{task.task_id}: {reason}", one_line=True) for reason in task.reasons
            )
    return "\n".join(lines)
