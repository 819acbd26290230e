"""Idempotent tools: an exact repeat of a successful call is set aside by Truth, not by Path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judgekit import DataError, Run, Task, ToolCall, grade_path, grade_truth, load_tasks

MODIFY = "modify_pending_order_address"
HOME = {"order_id": "#W1", "address1": "1 Elm St", "zip": "10001"}
WORK = {"order_id": "#W1", "address1": "9 Oak Ave", "zip": "10002"}
CANCEL = ("cancel_pending_order", {"order_id": "#W2", "reason": "no longer needed"})


def call(name: str, args: dict[str, Any], error: str | None = None) -> ToolCall:
    return ToolCall(name=name, args=args, error=error)


def run_of(*calls: ToolCall) -> Run:
    return Run(run_id="r", task_id="t", tool_calls=list(calls))


def task_of(*expected: tuple[str, dict[str, Any]], **options: Any) -> Task:
    return Task(id="t", expect_tools=[{"name": n, "args": a} for n, a in expected], **options)


def verdict(task: Task, run: Run) -> tuple[bool, str]:
    result = grade_truth(run, task)
    assert result is not None
    return result.passed, result.reason


def test_an_exact_repeat_after_success_is_set_aside_and_named() -> None:
    run = run_of(call(MODIFY, HOME), call(MODIFY, dict(reversed(HOME.items()))))
    plain = task_of((MODIFY, HOME), order="unordered")
    assert verdict(plain, run) == (
        False,
        "unexpected call #2 modify_pending_order_address(zip='10001', address1='1 Elm St', "
        "order_id='#W1') (not among the expected calls, order: unordered)",
    )
    idempotent = task_of((MODIFY, HOME), order="unordered", idempotent_tools=[MODIFY])
    assert verdict(idempotent, run) == (
        True,
        "all 1 expected calls matched (unordered); set aside as idempotent repeats: "
        "call #2 modify_pending_order_address (repeats call #1)",
    )


def test_path_still_counts_the_repeat_as_a_duplicate() -> None:
    task = task_of((MODIFY, HOME), idempotent_tools=[MODIFY], duplicates="forbid")
    result = grade_path(run_of(call(MODIFY, HOME), call(MODIFY, HOME)), task)
    assert result is not None
    assert (result.passed, result.reason) == (
        False,
        "duplicate call #2 modify_pending_order_address(order_id='#W1', address1='1 Elm St', "
        "zip='10001') repeats call #1",
    )


def test_only_a_repeat_of_the_last_success_is_set_aside() -> None:
    # Home, work, home again: the third call moves the order back, so it is a real change.
    task = task_of((MODIFY, WORK), order="unordered", idempotent_tools=[MODIFY])
    run = run_of(call(MODIFY, HOME), call(MODIFY, WORK), call(MODIFY, HOME))
    passed, reason = verdict(task, run)
    assert not passed
    assert reason == (
        "unexpected call #1 modify_pending_order_address(order_id='#W1', address1='1 Elm St', "
        "zip='10001') (not among the expected calls, order: unordered); "
        "unexpected call #3 modify_pending_order_address(order_id='#W1', address1='1 Elm St', "
        "zip='10001') (not among the expected calls, order: unordered)"
    )


def test_refused_calls_neither_count_as_the_success_nor_break_it() -> None:
    task = task_of((MODIFY, HOME), order="strict", idempotent_tools=[MODIFY])
    refused_first = run_of(call(MODIFY, HOME, error="order is processed"), call(MODIFY, HOME))
    assert verdict(task, refused_first) == (
        False,
        "unexpected call #2 modify_pending_order_address(order_id='#W1', address1='1 Elm St', "
        "zip='10001')",
    )
    refused_between = run_of(
        call(MODIFY, HOME), call(MODIFY, WORK, error="zip not served"), call(MODIFY, HOME)
    )
    lenient = task_of((MODIFY, HOME), idempotent_tools=[MODIFY], ignore_failed_calls=True)
    assert verdict(lenient, refused_between) == (
        True,
        "all 1 expected calls matched (superset); set aside as idempotent repeats: "
        "call #3 modify_pending_order_address (repeats call #1)",
    )
    # A repeat the tool refused is still a repeat of the success before it.
    refused_repeat = run_of(call(MODIFY, HOME), call(MODIFY, HOME, error="no change to make"))
    assert verdict(task, refused_repeat) == (
        True,
        "all 1 expected calls matched (strict); set aside as idempotent repeats: "
        "call #2 modify_pending_order_address (repeats call #1)",
    )


def test_strict_order_reasons_keep_the_runs_numbering() -> None:
    task = task_of((MODIFY, HOME), CANCEL, order="strict", idempotent_tools=[MODIFY])
    good = run_of(call(MODIFY, HOME), call(MODIFY, HOME), call(*CANCEL))
    assert verdict(task, good) == (
        True,
        "all 2 expected calls matched (strict); set aside as idempotent repeats: "
        "call #2 modify_pending_order_address (repeats call #1)",
    )
    wrong = run_of(call(MODIFY, HOME), call(MODIFY, HOME), call(MODIFY, WORK))
    assert verdict(task, wrong) == (
        False,
        "call #3: expected cancel_pending_order, got modify_pending_order_address("
        "order_id='#W1', address1='9 Oak Ave', zip='10002')",
    )


def test_canonical_arguments_make_a_repeat_and_other_tools_never_do() -> None:
    task = task_of(("f", {"n": 3, "ids": [1, 2]}), order="unordered", idempotent_tools=["f"])
    run = run_of(call("f", {"n": 3, "ids": [1, 2]}), call("f", {"ids": [1.0, 2], "n": 3.0}))
    assert verdict(task, run)[0] is True
    booked = task_of(("book", {"id": 1}), order="unordered", idempotent_tools=["f"])
    assert verdict(booked, run_of(call("book", {"id": 1}), call("book", {"id": 1}))) == (
        False,
        "unexpected call #2 book(id=1) (not among the expected calls, order: unordered)",
    )


def test_more_than_three_repeats_are_counted() -> None:
    task = task_of((MODIFY, HOME), idempotent_tools=[MODIFY])
    run = run_of(*[call(MODIFY, HOME) for _ in range(6)])
    assert verdict(task, run) == (
        True,
        "all 1 expected calls matched (superset); set aside as idempotent repeats: "
        "call #2 modify_pending_order_address (repeats call #1), "
        "call #3 modify_pending_order_address (repeats call #1), "
        "call #4 modify_pending_order_address (repeats call #1), and 2 more",
    )


def test_a_suite_default_reaches_every_task_that_does_not_set_its_own(tmp_path: Path) -> None:
    suite = tmp_path / "retail.yaml"
    suite.write_text(
        "suite: retail\n"
        "defaults:\n"
        "  idempotent_tools: [modify_pending_order_address, modify_user_address]\n"
        "tasks:\n"
        "  - id: a\n"
        "  - id: b\n"
        "    idempotent_tools: []\n",
        encoding="utf-8",
    )
    tasks = load_tasks(suite)
    assert [t.idempotent_tools for t in tasks] == [
        ["modify_pending_order_address", "modify_user_address"],
        [],
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("[modify, 5]", "4: tasks[0].idempotent_tools[1]: Input should be a valid string (got 5)"),
        (
            "['']",
            "4: tasks[0].idempotent_tools[0]: String should have at least 1 character (got '')",
        ),
        ("modify", "4: tasks[0].idempotent_tools: Input should be a valid list (got 'modify')"),
    ],
)
def test_tool_names_must_be_strings(tmp_path: Path, value: str, message: str) -> None:
    suite = tmp_path / "s.yaml"
    suite.write_text(f"suite: s\ntasks:\n  - id: a\n    idempotent_tools: {value}\n", "utf-8")
    with pytest.raises(DataError) as caught:
        load_tasks(suite)
    assert str(caught.value) == f"{suite}:{message}"
