"""Trials of an agent that runs as a command in a fresh copy of the task's folder.

``subprocess_trials(tasks, "python agent.py {workdir} {prompt}")`` is a trial function for
:func:`judgekit.trials.runner.run_trials`. Per trial:

1. the task's ``workdir`` is copied into a new temporary directory (an empty folder when
   the task has none), leaving out any ``hidden`` file stored inside it;
2. the ``protected`` files of the copy are hashed (sha256);
3. the command runs with the copy as its working directory, stdin closed, stdout and stderr
   captured, and its whole process group killed at the deadline (the task's ``timeout_s``,
   else the default);
4. protected files changed or deleted become violations (``edited protected file
   test_cart.py``), which fail the run;
5. ``.judgekit/usage.json``, if the agent wrote one, gives the run its tokens, cost, turns
   and tool calls (see :mod:`judgekit.formats.agent_usage`);
6. the ``hidden`` files are copied in and the task's ``check`` runs in the copy; its
   outcome is the run's ``final_state["check"]`` (``passed``, ``exit_code``, ``output``),
   which State grades against ``check.passed: true`` unless the task says otherwise;
7. the temporary directory is removed.

Placeholders in the command and in ``check``: ``{workdir}`` (the copy), ``{prompt}`` (the
task's input), ``{task_id}``, ``{trial}`` and ``{python}`` (the interpreter running
judgekit, for when ``python`` on PATH is another one). Each argument of the template is
filled in on its own, so a prompt stays one argument whatever it contains. A literal
argument of the agent command naming a file in the current directory (``agent.py``) is
made absolute, since the agent itself runs inside the copy. The agent also finds
``JUDGEKIT_TASK_ID``, ``JUDGEKIT_TRIAL`` and ``JUDGEKIT_SEED`` (the trial's seed, as an
in-process world's rng) in its environment.

How a run ends: ``timeout`` when the agent was killed at the deadline, ``error`` when it
exited non-zero, could not start, or printed more than
:data:`~judgekit.trials.process_group.OUTPUT_MAX_BYTES` (16 MiB, stdout and stderr
together; its process group is then killed), else ``completed``. The exit code and the last 4,000
characters of its output are kept in ``metadata`` (``exit_code``, ``output``) for every run,
to read why a run failed; ``final_answer`` is the last non-empty line the agent printed on
stdout (for a completed run). A crash, a timeout or a violation is a failed trial, never an
exception; a missing workdir, hidden file or a malformed command is a
:class:`judgekit.errors.ConfigError` raised before any trial runs.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit._util.number_format import setting, whole
from judgekit.errors import ConfigError
from judgekit.formats.agent_usage import USAGE_FILE, AgentUsage, read_agent_usage
from judgekit.formats.run import Run, StopReason, Usage
from judgekit.formats.task import Task, TaskSet
from judgekit.trials.command_template import CommandTemplate
from judgekit.trials.in_process import run_id_of, trial_seed
from judgekit.trials.process_group import OUTPUT_MAX_BYTES, Finished, run_command
from judgekit.trials.runner import TrialFunction
from judgekit.trials.workdir import (
    copy_workdir,
    digest_protected,
    place_hidden,
    protected_violations,
)

AGENT_OUTPUT_CHARS = 4000
CHECK_OUTPUT_CHARS = 2000


@dataclass(frozen=True)
class _TaskSetup:
    """What one task needs at every trial, resolved and checked once up front."""

    workdir: Path | None
    hidden: tuple[Path, ...]
    check: CommandTemplate | None


def subprocess_trials(
    tasks: TaskSet, command: str, *, timeout_s: float = 600, check_timeout_s: float = 300
) -> TrialFunction:
    """A trial function running ``command`` once per trial in a fresh copy of the workdir.

    ``timeout_s`` is the agent's deadline for tasks that set no ``timeout_s`` of their own;
    ``check_timeout_s`` is the hidden grader's. Raises :class:`ConfigError` now, before any
    trial, for a malformed command, a program not on PATH, or a task whose workdir, hidden
    files or check are wrong.
    """
    if timeout_s <= 0 or check_timeout_s <= 0:
        raise ConfigError(
            f"timeouts must be positive, got timeout_s={setting(timeout_s)} and "
            f"check_timeout_s={setting(check_timeout_s)}"
        )
    agent = CommandTemplate.parse(command, what="agent command").anchored(Path.cwd())
    agent.require_program(what="agent command")
    setups = {task.id: _prepare(task) for task in tasks}

    def trial(task: Task, number: int) -> Run:
        setup = setups.get(task.id) or _prepare(task)
        deadline = task.timeout_s if task.timeout_s is not None else timeout_s
        # ignore_cleanup_errors: an agent may leave files it made read-only; a leftover
        # temporary file must not turn a finished trial into an exception.
        with tempfile.TemporaryDirectory(prefix="judgekit-", ignore_cleanup_errors=True) as tmp:
            return _run_trial(task, number, setup, agent, Path(tmp), deadline, check_timeout_s)

    return trial


def _prepare(task: Task) -> _TaskSetup:
    """Resolve and check the task's files and check command, or raise ConfigError."""
    workdir = None
    if task.workdir is not None:
        workdir = task.resolve_path(task.workdir).resolve()  # "repo/.." names its parent
        if not workdir.is_dir():
            raise ConfigError(f"task {task.id!r}: workdir {workdir} is not a folder")
    hidden = tuple(task.resolve_path(name) for name in task.hidden)
    for path in hidden:
        if not path.is_file():
            raise ConfigError(f"task {task.id!r}: hidden file {path} does not exist")
    check = None
    if task.check is not None:
        what = f"task {task.id!r} check"
        check = CommandTemplate.parse(task.check, what=what)
        check.require_program(what=what)
    return _TaskSetup(workdir=workdir, hidden=hidden, check=check)


def _run_trial(
    task: Task,
    number: int,
    setup: _TaskSetup,
    agent: CommandTemplate,
    tmp: Path,
    timeout_s: float,
    check_timeout_s: float,
) -> Run:
    # The copy keeps the folder's name (the agent sees "repo", not a random name).
    work = tmp / ((setup.workdir.name if setup.workdir is not None else "") or "workdir")
    if setup.workdir is not None:
        copy_workdir(setup.workdir, work, leave_out=setup.hidden)
    else:
        work.mkdir()
    # A usage file shipped in the task folder would pass for this trial's report.
    (work / USAGE_FILE).unlink(missing_ok=True)
    before = digest_protected(work, task.protected or [])
    values = _placeholders(task, number, work)
    env = _agent_env(task, number)
    finished = run_command(agent.render(values), cwd=work, timeout_s=timeout_s, env=env)
    violations = protected_violations(work, before)
    usage, usage_error = read_agent_usage(work)
    final_state = None
    if setup.check is not None:
        check = _run_check(setup.check, setup.hidden, work, values, env, check_timeout_s)
        final_state = {"check": check}
    metadata = _metadata(finished, timeout_s, usage_error)
    stop_reason = _stop_reason(finished)
    return Run(
        run_id=run_id_of(task.suite, task.id, number),
        task_id=task.id,
        trial=number,
        input=task.input,
        tool_calls=usage.tool_calls if usage is not None else [],
        final_answer=_last_line(finished.stdout) if stop_reason == "completed" else None,
        turns=usage.turns if usage is not None else None,
        usage=_usage(usage),
        cost_usd=usage.cost_usd if usage is not None else None,
        duration_s=round(finished.duration_s, 6),
        stop_reason=stop_reason,
        final_state=final_state,
        violations=violations,
        metadata=metadata,
    )


def _placeholders(task: Task, number: int, work: Path) -> dict[str, str]:
    return {
        "workdir": str(work),
        "prompt": task.input or "",
        "task_id": task.id,
        "trial": str(number),
        "python": sys.executable,
    }


def _agent_env(task: Task, number: int) -> dict[str, str]:
    return {
        **os.environ,
        "JUDGEKIT_TASK_ID": task.id,
        "JUDGEKIT_TRIAL": str(number),
        "JUDGEKIT_SEED": str(trial_seed(task.suite, task.id, number)),
    }


def _run_check(
    check: CommandTemplate,
    hidden: tuple[Path, ...],
    work: Path,
    values: dict[str, str],
    env: dict[str, str],
    timeout_s: float,
) -> dict[str, Any]:
    """Copy the hidden files in, run the check; its verdict as the run's ``check`` state."""
    try:
        place_hidden(work, hidden)
    except OSError as exc:  # the agent deleted or locked its workdir
        return _check_state(False, None, f"cannot copy the hidden files into the workdir: {exc}")
    finished = run_command(check.render(values), cwd=work, timeout_s=timeout_s, env=env)
    if finished.start_error is not None:
        return _check_state(False, None, f"check {finished.start_error}")
    output = finished.output
    if finished.timed_out:
        output += f"\n[check killed after {setting(timeout_s)} s]"
    elif finished.output_overflowed:
        output += f"\n[check killed: {_printed_too_much()}]"
    return _check_state(finished.exit_code == 0, finished.exit_code, output)


def _check_state(passed: bool, exit_code: int | None, output: str) -> dict[str, Any]:
    return {"passed": passed, "exit_code": exit_code, "output": output[-CHECK_OUTPUT_CHARS:]}


def _stop_reason(finished: Finished) -> StopReason:
    if finished.timed_out:
        return "timeout"
    if finished.output_overflowed or finished.start_error is not None or finished.exit_code != 0:
        return "error"
    return "completed"


def _metadata(finished: Finished, timeout_s: float, usage_error: str | None) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    if finished.exit_code is not None:
        metadata["exit_code"] = finished.exit_code
    metadata["output"] = finished.output[-AGENT_OUTPUT_CHARS:]
    if finished.timed_out:
        metadata["stop_detail"] = f"no exit within {setting(timeout_s)} s; process group killed"
    elif finished.output_overflowed:
        metadata["stop_detail"] = f"agent {_printed_too_much()}; process group killed"
    elif finished.start_error is not None:
        metadata["stop_detail"] = f"agent {finished.start_error}"
    if usage_error is not None:
        metadata["usage_error"] = usage_error
    return metadata


def _printed_too_much() -> str:
    return f"printed more than {whole(OUTPUT_MAX_BYTES / 2**20)} MiB"


def _usage(usage: AgentUsage | None) -> Usage | None:
    if usage is None or (usage.input_tokens is None and usage.output_tokens is None):
        return None
    return Usage(input_tokens=usage.input_tokens or 0, output_tokens=usage.output_tokens or 0)


def _last_line(stdout: str) -> str | None:
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    return lines[-1] if lines else None
