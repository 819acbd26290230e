"""Path: did the agent take a sane route? Duplicates, loops, per-tool caps, budgets, errors.

Once a task configures Path, duplicate calls and loops are checked unless the task says
``duplicates: allow`` or ``loops: false``. A call that repeats one whose last attempt failed
is a retry, not a duplicate (the loop check still catches endless retries).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from judgekit._util.number_format import percent, setting
from judgekit.formats.grade import GraderResult
from judgekit.formats.task import LoopRule, Task
from judgekit.graders.canonical import call_key
from judgekit.graders.rendering import call_label, render_call
from judgekit.graders.run_view import CallView, RunView
from judgekit.graders.truth import NOTHING_TO_CHECK

DEFAULT_LOOP_RULE = LoopRule()


def grade_path(run: RunView, task: Task) -> GraderResult | None:
    """Grade the route of ``run``; ``None`` when the task configures no Path rule.

    >>> from judgekit.formats.run import Run, ToolCall
    >>> task = Task(id="t", max_calls={"issue_refund": 1})
    >>> refund = ToolCall(name="issue_refund", args={"order_id": "A100", "amount": 40})
    >>> print(grade_path(Run(run_id="r", task_id="t", tool_calls=[refund, refund]), task).reason)
    issue_refund called 2 times, max_calls is 1; duplicate call #2 issue_refund(order_id='A100', amount=40) repeats call #1
    """
    if not task.has_path:
        return None
    calls = run.tool_calls
    if not calls and not task.expect_tools and not _turns_checked(run, task):
        return GraderResult(passed=None, reason=NOTHING_TO_CHECK)
    counts: dict[str, int] = {}
    errors = 0
    for call in calls:
        counts[call.name] = counts.get(call.name, 0) + 1
        if call.error is not None:
            errors += 1
    # With no tool called twice there is no duplicate and no loop (min_repeats is >= 2).
    repeated = len(counts) < len(calls)
    keys = _call_keys(calls, counts) if repeated else []
    failures: list[str] = []
    failures.extend(_over_caps(counts, task))
    if repeated and task.duplicates != "allow":
        failures.extend(_duplicates(calls, keys))
    if repeated and task.loops is not False:
        rule = task.loops if isinstance(task.loops, LoopRule) else DEFAULT_LOOP_RULE
        failures.extend(_loops(calls, keys, rule))
    budget = _budget(task)
    if budget is not None and len(calls) > budget:
        failures.append(f"{len(calls)} tool calls, step budget is {budget} ({_budget_label(task)})")
    if task.max_turns is not None and run.turns is not None and run.turns > task.max_turns:
        failures.append(f"{run.turns} turns, max_turns is {task.max_turns}")
    if task.max_tool_error_rate is not None and calls:
        rate = errors / len(calls)
        if rate > task.max_tool_error_rate:
            failures.append(
                f"tool error rate {percent(rate, decimals=0)} ({errors} of {len(calls)} calls), "
                f"max is {percent(task.max_tool_error_rate, decimals=0)}"
            )
    if failures:
        return GraderResult(passed=False, reason="; ".join(failures))
    within = f", within budget {budget}" if budget is not None else ""
    return GraderResult(
        passed=True,
        reason=f"{len(calls)} calls, {errors} tool errors, no duplicates or loops{within}",
    )


def _turns_checked(run: RunView, task: Task) -> bool:
    """Whether Path checks the run's turns: the one rule a run without tool calls can break."""
    return task.max_turns is not None and run.turns is not None


def _call_keys(calls: Sequence[CallView], counts: dict[str, int]) -> list[Hashable]:
    """Each call's identity for duplicate and loop checks.

    Only a call whose tool is called more than once can repeat another, so only those pay
    for canonical arguments; every other call gets a key no other call can equal.
    """
    return [
        call_key(call) if counts[call.name] > 1 else ("\0unique", index)
        for index, call in enumerate(calls)
    ]


def _over_caps(counts: dict[str, int], task: Task) -> list[str]:
    if not task.max_calls:
        return []
    return [
        f"{tool} called {counts.get(tool, 0)} times, max_calls is {cap}"
        for tool, cap in task.max_calls.items()
        if counts.get(tool, 0) > cap
    ]


def _duplicates(calls: Sequence[CallView], keys: Sequence[Hashable]) -> list[str]:
    last_seen: dict[Hashable, int] = {}
    found: list[str] = []
    for index, (call, key) in enumerate(zip(calls, keys, strict=True)):
        previous = last_seen.get(key)
        if previous is not None and calls[previous].error is None:
            found.append(
                f"duplicate {call_label(index)} {render_call(call)} repeats {call_label(previous)}"
            )
        last_seen[key] = index
    if len(found) > 3:
        found = [*found[:3], f"and {len(found) - 3} more duplicates"]
    return found


def _loops(calls: Sequence[CallView], keys: Sequence[Hashable], rule: LoopRule) -> list[str]:
    """The first unit of 1..max_period calls repeated at least min_repeats times in a row."""
    n = len(keys)
    for period in range(1, rule.max_period + 1):
        for start in range(0, n - period * rule.min_repeats + 1):
            unit = keys[start : start + period]
            if period > 1 and _is_repetition(unit):
                continue  # already a loop of a shorter period
            repeats = 1
            while keys[start + repeats * period : start + (repeats + 1) * period] == unit:
                repeats += 1
            if repeats >= rule.min_repeats:
                shown = " → ".join(render_call(calls[start + k], 60) for k in range(period))
                return [f"loop: {shown} repeated {repeats} times from {call_label(start)}"]
    return []


def _is_repetition(unit: Sequence[Hashable]) -> bool:
    size = len(unit)
    return any(size % p == 0 and list(unit) == list(unit[:p]) * (size // p) for p in range(1, size))


def _budget(task: Task) -> int | None:
    budget = task.step_budget
    if budget is None:
        return None
    if budget.max_tool_calls is not None:
        return budget.max_tool_calls
    assert budget.multiplier is not None and task.expect_tools is not None
    return math.ceil(budget.multiplier * len(task.expect_tools))


def _budget_label(task: Task) -> str:
    """Where the step budget comes from, for a failing reason (written only then)."""
    budget = task.step_budget
    assert budget is not None
    if budget.max_tool_calls is not None:
        return "max_tool_calls"
    assert budget.multiplier is not None and task.expect_tools is not None
    return f"{setting(budget.multiplier)} × {len(task.expect_tools)} expected"
