"""The bundled suites say what a real agent would be held to."""

from __future__ import annotations

import copy

from judgekit import grade_run, load_tasks
from judgekit.formats.run import Run, ToolCall
from tests.conftest import REPO


def test_a_lookup_before_refunding_and_notifying_is_fine_wherever_it_falls() -> None:
    tasks = load_tasks(REPO / "tasks" / "shop.yaml")
    task = tasks.get("refund_and_notify")
    assert task is not None
    initial = tasks.suite_of(task).initial_state
    assert initial is not None
    final = copy.deepcopy(initial)
    final["orders"]["A100"]["refunded"] = 40
    final["emails"] = [{"order_id": "A100", "body": "Your refund of $40 is on its way."}]
    calls = [
        ToolCall(name="lookup_order", args={"order_id": "A100"}, result={"total": 40}),
        ToolCall(name="issue_refund", args={"order_id": "A100", "amount": 40}, result="ok"),
        ToolCall(name="lookup_order", args={"order_id": "A100"}, result={"refunded": 40}),
        ToolCall(
            name="send_email",
            args={"order_id": "A100", "body": "Your refund of $40 is on its way."},
        ),
    ]
    run = Run(
        run_id="shop/refund_and_notify/1",
        task_id="refund_and_notify",
        tool_calls=calls,
        final_answer="Refunded and emailed.",
        initial_state=initial,
        final_state=final,
    )
    grade = grade_run(run, task)
    assert grade.truth is not None and grade.truth.passed, grade.truth
    assert grade.state is not None and grade.state.passed, grade.state
