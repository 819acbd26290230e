"""Verdicts for the store's tests: every field set, so a round trip checks all of them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

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
