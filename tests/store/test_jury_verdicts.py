"""A jury's verdict is stored as one verdict, its jurors' verdicts inside it, and read back."""

from __future__ import annotations

from datetime import UTC, datetime

from judgekit.formats.verdict import JurorVerdict, Verdict
from judgekit.store import Store

JURY = "jury:majority(anthropic/b,openai/a,openai/c)"


def jury_verdict() -> Verdict:
    jurors = [
        JurorVerdict(model="openai/a", status="scored", score="pass", reason="fine",
                     input_tokens=10, output_tokens=2, cost_usd=0.001, latency_s=0.2,
                     endpoint="http://127.0.0.1:9/v1"),
        JurorVerdict(model="anthropic/b", status="unscored", unscored_reason="not valid JSON",
                     input_tokens=20, output_tokens=4, cost_usd=0.002, cached=True),
        JurorVerdict(model="openai/c", status="scored", score="pass", reason="ok",
                     input_tokens=30, output_tokens=6, cost_usd=0.0005),
    ]  # fmt: skip
    return Verdict(
        run_id="shop/refund/1",
        rubric_id="jury",
        rubric_version="abc123",
        model=JURY,
        status="scored",
        score="pass",
        reason="majority: pass from 2 of 2 scored jurors (3 on the jury)",
        confidence=1.0,
        input_tokens=60,
        output_tokens=12,
        cost_usd=0.0035,
        at=datetime(2026, 11, 1, 9, tzinfo=UTC),
        jurors=jurors,
    )


def test_a_jury_verdict_keeps_its_jurors_in_the_store(store: Store) -> None:
    verdict = jury_verdict()
    store.record_verdicts([verdict])
    (read,) = store.verdicts("jury", model=JURY)
    assert read.jurors == verdict.jurors
    assert read.model_dump(exclude={"endpoint", "input_digest"}) == verdict.model_dump(
        exclude={"endpoint", "input_digest"}
    )
