"""State: expect_state on dotted paths and only_changes."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

from judgekit import Run, Task, grade_state
from judgekit.graders.state import changes

INITIAL = {
    "orders": {
        "A100": {"status": "delivered", "refunded": 0},
        "A101": {"status": "shipped", "refunded": 0},
    },
    "emails": [],
}


def verdict(
    task: Task, final: dict[str, Any] | None, initial: dict[str, Any] | None = INITIAL
) -> tuple[bool, str]:
    run = Run(run_id="r", task_id="t", tool_calls=[], initial_state=initial, final_state=final)
    result = grade_state(run, task)
    assert result is not None
    return result.passed, result.reason


def after(**changes: Any) -> dict[str, Any]:
    import copy

    state = copy.deepcopy(INITIAL)
    for path, value in changes.items():
        *parents, leaf = path.split("__")
        node = state
        for part in parents:
            node = node[part]
        node[leaf] = value
    return state


def test_expect_state_with_matchers() -> None:
    task = Task(
        id="t",
        expect_state={
            "orders.A100.refunded": {"$approx": 40, "$abs": 0.5},
            "orders.A100.status": "delivered",
        },
    )
    assert verdict(task, after(orders__A100__refunded=40)) == (True, "2 state checks passed")
    assert verdict(task, after(orders__A100__refunded=80)) == (
        False,
        "orders.A100.refunded: expected 40 ± 0.5, got 80",
    )


def test_missing_path_and_absent() -> None:
    task = Task(
        id="t", expect_state={"orders.A999.status": "booked", "orders.A101.note": {"$absent": True}}
    )
    assert verdict(task, after()) == (
        False,
        "orders.A999.status: missing from final_state (expected 'booked')",
    )
    task = Task(id="t", expect_state={"orders.A100": {"$absent": True}})
    assert verdict(task, after()) == (
        False,
        'orders.A100: expected to be absent, got {"refunded": 0, "status": "delivered"}',
    )


def test_list_items_by_index() -> None:
    task = Task(
        id="t", expect_state={"emails.0.to": "ana@example.com", "emails.1": {"$absent": True}}
    )
    one = after(emails=[{"to": "ana@example.com"}])
    assert verdict(task, one)[0] is True
    two = after(emails=[{"to": "ana@example.com"}, {"to": "ana@example.com"}])
    assert verdict(task, two) == (
        False,
        'emails.1: expected to be absent, got {"to": "ana@example.com"}',
    )


def test_only_changes_names_the_change_next_door() -> None:
    task = Task(id="t", only_changes=["orders.A100"])
    assert verdict(task, after(orders__A100__refunded=40)) == (
        True,
        "no change outside [orders.A100]",
    )
    both = after(orders__A100__refunded=40, orders__A101__refunded=25)
    assert verdict(task, both) == (
        False,
        "orders.A101.refunded changed from 0 to 25: outside only_changes [orders.A100]",
    )


def test_only_changes_sees_additions_and_removals() -> None:
    task = Task(id="t", only_changes=[])
    final = after(emails=[{"to": "x"}])
    del final["orders"]["A101"]
    assert verdict(task, final) == (
        False,
        'emails.0 added ({"to": "x"}), orders.A101 removed (was {"refunded": 0, "status": "shipped"}): '
        "outside only_changes [nothing]",
    )


def test_numbers_compare_by_value_in_the_diff() -> None:
    assert verdict(Task(id="t", only_changes=[]), after(orders__A100__refunded=0.0))[0] is True
    assert verdict(Task(id="t", only_changes=[]), after(orders__A100__refunded=False))[0] is False


def test_initial_state_falls_back_to_the_task() -> None:
    task = Task(id="t", only_changes=["orders.A100"], initial_state=INITIAL)
    assert verdict(task, after(orders__A101__status="lost"), initial=None)[0] is False
    bare = Task(id="t", only_changes=[])
    assert verdict(bare, after(), initial=None) == (
        False,
        "only_changes needs the initial state: the run has no initial_state and the task none",
    )


def test_no_final_state() -> None:
    assert verdict(Task(id="t", expect_state={"a": 1}), None) == (
        False,
        "the run has no final_state to check",
    )


@pytest.mark.parametrize("json_values", [False, True])
def test_a_bool_where_a_number_was_is_a_change_however_deep(json_values: bool) -> None:
    """Python's == holds True == 1 and 1 == 1.0: an equal-looking subtree is still walked
    where a bool may meet a number, and equal numbers of two types are no change."""
    before = {"a": {"x": 1, "y": [0, {"z": 2}]}, "b": 1, "c": "s", "d": -0.0}
    now = {"a": {"x": True, "y": [0, {"z": 2.0}]}, "b": 1.0, "c": "s", "d": 0.0}
    assert changes(before, now, json_values=json_values) == [(("a", "x"), 1, True)]
    if not json_values:  # a dict subclass is never decoded from JSON
        inner = OrderedDict(x=0, y=1)  # equal, but a bool inside
        assert changes({"o": inner}, {"o": OrderedDict(x=False, y=1)}) == [(("o", "x"), 0, False)]
    assert changes({"n": 5, "m": {"k": 1}}, {"n": 5, "m": {"k": 1}}) == []


def test_each_task_tells_its_own_passing_checks_and_a_task_given_new_ones_tells_those() -> None:
    one = Task(id="t", expect_state={"orders.A100.refunded": 0}, only_changes=["emails"])
    two = Task(id="t", only_changes=["orders.A100", "emails"])
    unchanged = after()
    for _ in range(2):
        assert verdict(one, unchanged) == (True, "1 state check passed; no change outside [emails]")
        assert verdict(two, unchanged) == (True, "no change outside [orders.A100, emails]")
    two.only_changes = ["emails"]
    assert verdict(two, unchanged) == (True, "no change outside [emails]")
