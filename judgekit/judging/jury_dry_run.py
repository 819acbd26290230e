"""``judgekit judge --dry-run`` for a jury: what each juror would be sent and cost, and the
total, with nothing sent.

Each juror is planned as one judge of the rubric (:func:`~judgekit.judging.dry_run.dry_run`
of :func:`~judgekit.formats.rubric_file.juror_rubric`): its tokens counted for its own model,
priced at its own price. The total is their sum, unknown when a juror's price is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from judgekit._util.number_format import dollars
from judgekit._util.terminal_text import visible
from judgekit.formats.rubric_file import juror_rubric
from judgekit.judging.dry_run import (
    DryRun,
    TokenCounter,
    dry_run,
    dry_run_json,
    prompt_lines,
    token_counter,
)
from judgekit.judging.pipeline import JudgingInputs

__all__ = ["JuryDryRun", "jury_dry_run", "jury_dry_run_json", "jury_dry_run_lines"]


@dataclass(frozen=True)
class JuryDryRun:
    """The plan of each juror, in the rubric's order, under the jury's name."""

    model: str
    jurors: list[DryRun]

    @property
    def requests(self) -> int:
        return sum(plan.requests for plan in self.jurors)

    @property
    def input_cost(self) -> float | None:
        costs = [plan.input_cost for plan in self.jurors]
        return None if None in costs else sum(c for c in costs if c is not None)

    @property
    def max_output_cost(self) -> float | None:
        costs = [plan.max_output_cost for plan in self.jurors]
        return None if None in costs else sum(c for c in costs if c is not None)


def jury_dry_run(
    inputs: JudgingInputs, *, samples: int | None = None, counter: TokenCounter | None = None
) -> JuryDryRun:
    """Every juror's plan for the runs of ``inputs``; nothing is sent."""
    rubric = inputs.rubric
    if rubric.judge.jury is None:
        raise ValueError(f"rubric {rubric.id} names no jury")
    loaded: dict[str, Any] = {}  # each encoding tried once, however many jurors use it
    plans = [
        dry_run(
            replace(inputs, rubric=juror_rubric(rubric, juror)),
            samples=samples,
            counter=counter or token_counter(juror.model, loaded),
        )
        for juror in rubric.judge.jury
    ]
    return JuryDryRun(rubric.judge.model, plans)


def jury_dry_run_lines(plan: JuryDryRun) -> list[str]:
    """The first prompt, a line per juror, and the total."""
    first = plan.jurors[0]
    lines = prompt_lines(first)
    samples = "sample" if first.samples == 1 else "samples"
    orders = " × 2 orders (pairwise)" if first.orders == 2 else ""
    lines.append(
        f"{first.runs:,} runs × {first.samples} {samples}{orders} to each of "
        f"{len(plan.jurors)} jurors of {plan.model}:"
    )
    for juror in plan.jurors:
        lines.append(
            f"  {juror.model}: {juror.requests:,} requests, input {juror.input_tokens:,} tokens "
            f"(counted by {juror.counted_by}), output at most {juror.max_output_tokens:,} "
            f"tokens; {_cost(juror)}"
        )
    unpriced = [juror.model for juror in plan.jurors if _unpriced(juror)]
    if unpriced:
        total = f"unknown, the price table lacks {', '.join(unpriced)}; add their prices with "
        total += "--prices FILE or JUDGEKIT_HOME/prices.yaml"
    else:
        assert plan.input_cost is not None and plan.max_output_cost is not None
        most = plan.input_cost + plan.max_output_cost
        total = (
            f"at most {dollars(most)} (before the cache and the verdicts already in --out; a "
            "repair retry costs a request more)"
        )
    lines.append(f"total: {plan.requests:,} requests; projected cost {total}")
    return lines


def jury_dry_run_json(plan: JuryDryRun) -> dict[str, Any]:
    """The ``--dry-run --json`` object of a jury: the first prompt, each juror's plan and
    the totals."""
    first = dry_run_json(plan.jurors[0])
    jurors = []
    for juror in plan.jurors:
        entry = dry_run_json(juror)
        for shared in ("dry_run", "first_run_id", "first_prompt"):
            del entry[shared]
        jurors.append(entry)
    return {
        "dry_run": True,
        "model": plan.model,
        "first_run_id": first["first_run_id"],
        "first_prompt": first["first_prompt"],
        "jurors": jurors,
        "requests": plan.requests,
        "input_cost_usd": plan.input_cost,
        "max_output_cost_usd": plan.max_output_cost,
    }


def _unpriced(plan: DryRun) -> bool:
    return plan.input_cost is None or plan.max_output_cost is None


def _cost(plan: DryRun) -> str:
    if _unpriced(plan):
        return f"projected cost unknown ({visible(plan.model, one_line=True)} has no price)"
    assert plan.input_cost is not None and plan.max_output_cost is not None
    return (
        f"{dollars(plan.input_cost)} input + at most {dollars(plan.max_output_cost)} output "
        f"= at most {dollars(plan.input_cost + plan.max_output_cost)}"
    )
