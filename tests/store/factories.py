"""Verdicts, runs and grades for the store's tests: every field set, so a round trip checks
all of them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from judgekit.formats.grade import Grade, GraderResult
from judgekit.formats.run import Run, ToolCall, Usage
from judgekit.formats.verdict import Verdict, VerdictSample

AT = datetime(2026, 11, 29, 10, 2, 11, 123456, tzinfo=UTC)


def make_verdict(run_id: str = "shop/refund_full/3", **changes: Any) -> Verdict:
    """A scored three-sample verdict on ``run_id``; keyword arguments replace fields."""
    fields: dict[str, Any] = {
        "run_id": run_id,
        "rubric_id": "goal_completion",
        "rubric_version": "3f2a9c",
        "model": "openai/gpt-4o-mini",
        "status": "scored",
        "score": "pass",
        "reason": "The refund of $40 was issued, as asked.",
        "samples": [
            VerdictSample(score="pass", reason="refund issued"),
            VerdictSample(score="pass", reason="amount matches"),
            VerdictSample(score=None, reason=None, status="unscored"),
        ],
        "agreement": 2 / 3,
        "position_bias": False,
        "unscored_reason": None,
        "input_tokens": 1234,
        "output_tokens": 56,
        "cost_usd": 0.000219,
        "latency_s": 1.25,
        "cached": True,
        "at": AT,
    }
    fields.update(changes)
    return Verdict(**fields)


def make_run(run_id: str = "shop/refund_full/3", **changes: Any) -> Run:
    """A refund run with three tool calls (one refused, one with unparseable arguments)."""
    fields: dict[str, Any] = {
        "run_id": run_id,
        "task_id": "shop/refund_full",
        "trial": 3,
        "input": "Refund order 1234 in full, please.",
        "tool_calls": [
            ToolCall(
                name="lookup_order",
                args={"order_id": "1234"},
                result={"status": "delivered", "total": 40.0, "items": ["mug", "tea"]},
                id="call_1",
            ),
            ToolCall(name="refund", args={"order_id": "1234", "amount": 40}, error="refused"),
            ToolCall(
                name="note",
                raw_arguments="{order: 1234",
                arguments_error="Expecting property name enclosed in double quotes",
            ),
        ],
        "final_answer": "Your refund of $40 is on its way — 🎉",
        "turns": 4,
        "usage": Usage(input_tokens=1200, output_tokens=80, cached_tokens=512),
        "cost_usd": 0.000219,
        "duration_s": 4.5,
        "stop_reason": "completed",
        "initial_state": {"orders": {"1234": {"refunded": False, "total": 40.0}}},
        "final_state": {"orders": {"1234": {"refunded": True, "total": 40.0}}},
        "violations": ["edited protected file config.yaml"],
        "metadata": {"agent": "v2", "nested": {"values": [1, 2.5, None, True, "x"]}},
    }
    fields.update(changes)
    return Run(**fields)


def make_grade(run_id: str = "shop/refund_full/3", **changes: Any) -> Grade:
    """A failed grade: Truth failed, Path passed, State not configured."""
    fields: dict[str, Any] = {
        "run_id": run_id,
        "task_id": "shop/refund_full",
        "trial": 3,
        "passed": False,
        "truth": GraderResult(passed=False, reason="refund.amount: expected 40, got 4"),
        "path": GraderResult(passed=True, reason="3 tool calls within the budget of 6"),
        "state": None,
        "claimed_success": True,
        "violations": ["edited protected file config.yaml"],
        "turns": 4,
        "cost_usd": 0.000219,
        "stop_reason": "max_turns",
        "tool_calls": 3,
        "tool_errors": 1,
    }
    fields.update(changes)
    return Grade(**fields)
