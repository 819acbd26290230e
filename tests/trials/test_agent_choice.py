"""Choosing the agent of `judgekit run`: exactly one of --agent and --agent-cmd."""

from __future__ import annotations

import pytest

from judgekit import ConfigError, load_tasks
from judgekit.trials.agent_choice import trial_function_for
from judgekit.trials.runner import TrialLimits
from tests.conftest import REPO

SHOP = REPO / "tasks" / "shop.yaml"
EXACTLY_ONE = "give exactly one of --agent module:function or --agent-cmd 'COMMAND'"


@pytest.mark.parametrize(
    ("agent", "agent_cmd"), [(None, None), ("examples.shop:agent", "python agent.py")]
)
def test_neither_or_both_agents_is_refused(agent: str | None, agent_cmd: str | None) -> None:
    tasks = load_tasks(SHOP)
    with pytest.raises(ConfigError) as raised:
        trial_function_for(tasks, agent=agent, agent_cmd=agent_cmd, limits=TrialLimits())
    assert str(raised.value) == EXACTLY_ONE


def test_an_in_process_agent_runs_one_trial_in_a_fresh_world() -> None:
    tasks = load_tasks(SHOP)
    trial = trial_function_for(
        tasks, agent="examples.shop:agent", agent_cmd=None, limits=TrialLimits()
    )
    task = tasks.get("refund_full")
    assert task is not None
    run = trial(task, 3)
    assert (run.run_id, run.task_id, run.trial) == ("shop/refund_full/3", "refund_full", 3)
    assert run.stop_reason == "completed"
