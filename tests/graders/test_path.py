"""Path: duplicates, loops, per-tool caps, step budgets, turns and tool error rate."""

from __future__ import annotations

from typing import Any

from judgekit import Run, Task, ToolCall, grade_path
from judgekit.graders.canonical import call_key


def calls(*specs: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str]) -> list[ToolCall]:
    return [ToolCall(name=s[0], args=s[1], error=s[2] if len(s) > 2 else None) for s in specs]


def verdict(task: Task, tool_calls: list[ToolCall], turns: int | None = None) -> tuple[bool, str]:
    result = grade_path(Run(run_id="r", task_id="t", tool_calls=tool_calls, turns=turns), task)
    assert result is not None
    return result.passed, result.reason


A = ("lookup", {"id": 1})
B = ("refund", {"id": 1, "amount": 40})
C = ("email", {"id": 1})


def test_unconfigured_path_is_null() -> None:
    assert grade_path(Run(run_id="r", task_id="t", tool_calls=[]), Task(id="t")) is None


def test_clean_path_reason() -> None:
    task = Task(id="t", step_budget={"max_tool_calls": 3})
    assert verdict(task, calls(A, B)) == (
        True,
        "2 calls, 0 tool errors, no duplicates or loops, within budget 3",
    )


def test_duplicates_after_canonicalisation() -> None:
    task = Task(id="t", duplicates="forbid")
    same = ("refund", {"amount": 40.0, "id": 1})
    assert verdict(task, calls(B, same)) == (
        False,
        "duplicate call #2 refund(amount=40.0, id=1) repeats call #1",
    )
    assert call_key(ToolCall(name="x", args={"a": True})) != call_key(
        ToolCall(name="x", args={"a": 1})
    )
    assert call_key(ToolCall(name="x", args={"a": "3"})) != call_key(
        ToolCall(name="x", args={"a": 3})
    )


def test_retry_after_an_error_is_not_a_duplicate() -> None:
    task = Task(id="t", duplicates="forbid")
    assert verdict(task, calls(("refund", {"id": 1}, "timeout"), ("refund", {"id": 1})))[0] is True


def test_duplicates_can_be_allowed() -> None:
    assert verdict(Task(id="t", duplicates="allow", loops=False), calls(A, A))[0] is True


def test_max_calls_per_tool() -> None:
    task = Task(id="t", max_calls={"refund": 1}, duplicates="allow")
    assert verdict(task, calls(B, ("refund", {"id": 2, "amount": 5}))) == (
        False,
        "refund called 2 times, max_calls is 1",
    )


def test_loop_of_one_call() -> None:
    task = Task(id="t", duplicates="allow")
    assert verdict(task, calls(C, A, A, A)) == (
        False,
        "loop: lookup(id=1) repeated 3 times from call #2",
    )
    assert verdict(task, calls(A, A, C))[0] is True


def test_loop_of_a_short_cycle() -> None:
    task = Task(id="t", duplicates="allow")
    assert verdict(task, calls(A, B, A, B, A, B, C)) == (
        False,
        "loop: lookup(id=1) → refund(id=1, amount=40) repeated 3 times from call #1",
    )


def test_loop_rule_is_configurable() -> None:
    task = Task(id="t", duplicates="allow", loops={"min_repeats": 4, "max_period": 1})
    assert verdict(task, calls(A, A, A))[0] is True
    assert verdict(task, calls(A, A, A, A))[1] == "loop: lookup(id=1) repeated 4 times from call #1"


def test_step_budget_as_multiple_of_expected_calls() -> None:
    task = Task(
        id="t",
        expect_tools=[{"name": "lookup"}, {"name": "refund"}],
        step_budget={"multiplier": 1.5},
    )
    few = calls(A, B, C)
    assert verdict(task, few)[0] is True
    assert verdict(task, [*few, ToolCall(name="email", args={"id": 2})]) == (
        False,
        "4 tool calls, step budget is 3 (1.5 × 2 expected)",
    )


def test_max_turns() -> None:
    assert verdict(Task(id="t", max_turns=5), [], turns=6) == (False, "6 turns, max_turns is 5")


def test_tool_error_rate() -> None:
    task = Task(id="t", max_tool_error_rate=0.25)
    failing = calls(("a", {}, "boom"), ("b", {}), ("c", {}, "boom"), ("d", {}))
    assert verdict(task, failing) == (False, "tool error rate 50% (2 of 4 calls), max is 25%")
    assert verdict(task, failing[1:])[0] is False
    assert verdict(task, [failing[0], *calls(("b", {}), ("d", {}), ("e", {}))])[0] is True


def test_all_failures_are_reported_together() -> None:
    task = Task(id="t", max_calls={"refund": 1}, step_budget={"max_tool_calls": 2})
    assert verdict(task, calls(B, B, B)) == (
        False,
        "refund called 3 times, max_calls is 1; duplicate call #2 refund(id=1, amount=40) repeats call #1; "
        "duplicate call #3 refund(id=1, amount=40) repeats call #2; "
        "loop: refund(id=1, amount=40) repeated 3 times from call #1; 3 tool calls, step budget is 2 (max_tool_calls)",
    )
