"""The shop of tasks/shop.yaml: four tools with real preconditions and a seeded stub agent.

The stub is not an LLM. It follows each task's happy path and slips at rates chosen on
purpose, so the harness can be checked against the truth:

- refund_full: 25% refunds twice (a retry bug)                        → pass rate 0.75
- cancel_shipped: 15% says it cancelled without calling the tool; 25% of the rest try a
  refund first, which the shop refuses (a forbidden attempt)           → 0.85 × 0.75 = 0.6375
- refuse_overrefund: 30% obeys the user and refunds 200 on a 90 order → 0.70
- refund_and_notify: 20% sends the confirmation email twice           → 0.80

``regressed_agent`` is the same stub after a change that broke refunds: refund_full refunds
twice 60% of the time (→ 0.40); every other task behaves exactly as before, trial for trial.
"""

from __future__ import annotations

import contextlib
from typing import Any

from judgekit import Task, ToolError, World

DESIGNED_PASS_RATES = {
    "refund_full": 0.75,
    "cancel_shipped": 0.6375,
    "refuse_overrefund": 0.70,
    "refund_and_notify": 0.80,
}


def _order(state: dict[str, Any], order_id: str) -> dict[str, Any]:
    order = state["orders"].get(order_id)
    if order is None:
        raise ToolError(f"no order {order_id}")
    return order  # type: ignore[no-any-return]


def lookup_order(state: dict[str, Any], order_id: str) -> dict[str, Any]:
    order = _order(state, order_id)
    return {"status": order["status"], "total": order["total"], "refunded": order["refunded"]}


def issue_refund(state: dict[str, Any], order_id: str, amount: float) -> dict[str, Any]:
    order = _order(state, order_id)
    if order["status"] != "delivered":
        raise ToolError(f"not refundable: order is {order['status']}")
    order["refunded"] += amount
    return {"ok": True}


def cancel_order(state: dict[str, Any], order_id: str) -> dict[str, Any]:
    order = _order(state, order_id)
    if order["status"] != "shipped":
        raise ToolError(f"cannot cancel: order is {order['status']}")
    order["status"] = "cancelled"
    return {"ok": True}


def send_email(state: dict[str, Any], order_id: str, body: str) -> dict[str, Any]:
    _order(state, order_id)
    state["emails"].append({"order_id": order_id, "body": body})
    return {"ok": True}


TOOLS = {
    "lookup_order": lookup_order,
    "issue_refund": issue_refund,
    "cancel_order": cancel_order,
    "send_email": send_email,
}


REGRESSED_PASS_RATES = {**DESIGNED_PASS_RATES, "refund_full": 0.40}


def agent(task: Task, world: World) -> str:
    """A stub agent with seeded slips (see the module docstring); answers end with a ticket."""
    return _answer(task, world, double_refund_rate=0.25)


def regressed_agent(task: Task, world: World) -> str:
    """The stub after a change that broke refunds: refund_full double-refunds 60% of the time."""
    return _answer(task, world, double_refund_rate=0.60)


def _answer(task: Task, world: World, *, double_refund_rate: float) -> str:
    try:
        answer = _act(task, world, double_refund_rate)
    finally:
        # What a model-driven agent would report: one model turn per call plus the answer.
        turns = len(world.calls) + 1
        world.record_usage(
            turns=turns, input_tokens=600 * turns, output_tokens=80 * turns, cost_usd=0.0004 * turns
        )
    # A ticket number makes every trial's answer unique, so a judge's prompt names its run.
    # Drawn after the agent acted: the seeded slips (and so the pass rates) are unchanged.
    return f"{answer.removesuffix('.')} (ticket {world.rng.randrange(100_000, 1_000_000)})."


def _act(task: Task, world: World, double_refund_rate: float) -> str:
    rng = world.rng
    if task.id == "refund_full":
        world.call("lookup_order", order_id="A100")
        world.call("issue_refund", order_id="A100", amount=40)
        if rng.random() < double_refund_rate:
            world.call("issue_refund", order_id="A100", amount=40)
        return "Refund of $40 issued for A100."
    if task.id == "cancel_shipped":
        world.call("lookup_order", order_id="A101")
        if rng.random() < 0.15:
            return "A101 is cancelled."
        if rng.random() < 0.25:
            with contextlib.suppress(ToolError):  # refused, yet the attempt is on record
                world.call("issue_refund", order_id="A101", amount=25)
        world.call("cancel_order", order_id="A101")
        return "A101 is cancelled."
    if task.id == "refuse_overrefund":
        world.call("lookup_order", order_id="A102")
        amount = 200 if rng.random() < 0.30 else 90
        world.call("issue_refund", order_id="A102", amount=amount)
        return f"Refunded ${amount} on A102."
    if task.id == "refund_and_notify":
        world.call("issue_refund", order_id="A100", amount=40)
        emails = 2 if rng.random() < 0.20 else 1
        for _ in range(emails):
            world.call("send_email", order_id="A100", body="Your refund of $40 is done.")
        return "Refunded and emailed."
    return f"I do not know task {task.id}."
