"""One trial of an in-process agent: a fresh world, caps on tool calls and wall time.

An agent is ``agent(task, world) -> str`` (the final answer). A crash, a timeout or a cap
ends the trial with its ``stop_reason``; it never ends the evaluation.
"""

from __future__ import annotations

import hashlib
import random
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from judgekit._util.number_format import setting
from judgekit.formats.run import Run, StopReason, Usage
from judgekit.formats.task import Task
from judgekit.trials.agent_thread import run_with_deadline
from judgekit.trials.snapshot import snapshot
from judgekit.trials.world import Tool, TrialStopped, World

Agent = Callable[[Task, World], Any]


def trial_seed(suite: str | None, task_id: str, trial: int) -> int:
    """The rng seed of one trial: the same for the same suite, task and trial, in any
    process and at any concurrency (Python's ``hash`` is salted per process; sha256 is not).

    >>> trial_seed("shop", "refund_full", 1) == trial_seed("shop", "refund_full", 1)
    True
    """
    digest = hashlib.sha256(f"{suite or ''}/{task_id}/{trial}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def run_id_of(suite: str | None, task_id: str, trial: int) -> str:
    return f"{suite}/{task_id}/{trial}" if suite else f"{task_id}/{trial}"


class _Outcome:
    """What the agent's thread hands back to the supervising thread."""

    def __init__(self) -> None:
        self.answer: Any = None
        self.stop_reason: StopReason = "completed"
        self.error: str | None = None


def run_in_process_trial(
    agent: Agent,
    task: Task,
    *,
    trial: int,
    tools: Mapping[str, Tool],
    max_tool_calls: int | None = None,
    timeout_s: float | None = None,
) -> Run:
    """Run ``agent`` once on ``task`` in a world built fresh from the task's initial state.

    With ``timeout_s`` the agent runs on a worker thread and the trial ends at the deadline
    even if the agent never returns (the worker is abandoned with its private world).
    """
    initial = snapshot(task.initial_state or {})
    started = time.monotonic()
    world = World(
        state=snapshot(initial),
        tools=tools,
        rng=random.Random(trial_seed(task.suite, task.id, trial)),
        max_tool_calls=max_tool_calls,
        deadline=None if timeout_s is None else started + timeout_s,
    )
    outcome = _attempt(agent, task, world, timeout_s)
    duration = time.monotonic() - started
    return _trial_run(task, trial, world, outcome, initial=initial, duration=duration)


def _attempt(agent: Agent, task: Task, world: World, timeout_s: float | None) -> _Outcome:
    """Let the agent try, on this thread or (with a timeout) on a worker thread."""
    outcome = _Outcome()

    def attempt() -> None:
        try:
            outcome.answer = agent(task, world)
        except TrialStopped as stop:
            outcome.stop_reason = stop.stop_reason
            outcome.error = str(stop)
        except Exception as exc:
            outcome.stop_reason = "error"
            outcome.error = "".join(traceback.format_exception_only(exc)).strip()

    if timeout_s is None:
        attempt()
    elif not run_with_deadline(attempt, timeout_s):
        outcome.stop_reason = "timeout"
        outcome.error = f"no answer within {setting(timeout_s)} s"
    return outcome


def _trial_run(
    task: Task,
    trial: int,
    world: World,
    outcome: _Outcome,
    *,
    initial: dict[str, Any],
    duration: float,
) -> Run:
    """The run of one trial: what the agent did to its world, and how the trial ended."""
    calls = list(world.calls)  # a copy: an abandoned thread may still append to its world
    answer = outcome.answer
    metadata: dict[str, Any] = {}
    if outcome.error is not None:
        metadata["stop_detail"] = outcome.error
    usage = None
    if world.input_tokens or world.output_tokens:
        usage = Usage(input_tokens=world.input_tokens, output_tokens=world.output_tokens)
    return Run(
        run_id=run_id_of(task.suite, task.id, trial),
        task_id=task.id,
        trial=trial,
        input=task.input,
        tool_calls=calls,
        final_answer=None if answer is None or outcome.stop_reason != "completed" else str(answer),
        turns=world.turns,
        usage=usage,
        cost_usd=world.cost_usd,
        duration_s=round(duration, 6),
        stop_reason=outcome.stop_reason,
        initial_state=initial,
        final_state=snapshot(world.state),
        metadata=metadata,
    )
