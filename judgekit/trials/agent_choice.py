"""Which agent runs the trials: a Python function in process, or a command in a subprocess."""

from __future__ import annotations

from judgekit.errors import ConfigError
from judgekit.formats.task import TaskSet
from judgekit.trials.runner import TrialFunction, TrialLimits, in_process_trials, load_agent

__all__ = ["trial_function_for"]

# A subprocess agent needs a wall-time cap: without one a hung command would hold its trial.
DEFAULT_COMMAND_TIMEOUT_S = 600.0


def trial_function_for(
    tasks: TaskSet, *, agent: str | None, agent_cmd: str | None, limits: TrialLimits
) -> TrialFunction:
    """The trials of ``agent`` (``module:function``) or of ``agent_cmd`` (a command line);
    exactly one of them must be given."""
    if (agent is None) == (agent_cmd is None):
        raise ConfigError("give exactly one of --agent module:function or --agent-cmd 'COMMAND'")
    if agent is not None:
        return in_process_trials(tasks, load_agent(agent), limits)
    from judgekit.trials.subprocess_agent import subprocess_trials

    assert agent_cmd is not None
    timeout = limits.timeout_s if limits.timeout_s is not None else DEFAULT_COMMAND_TIMEOUT_S
    return subprocess_trials(tasks, agent_cmd, timeout_s=timeout)
