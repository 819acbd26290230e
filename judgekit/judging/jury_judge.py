"""A jury judging runs: every juror asks its own model about the run, and the jury's verdict
combines theirs (:mod:`judgekit.judging.jury_combine`).

Each juror is a :class:`~judgekit.judging.judge.Judge` of the rubric as that juror alone
judges it (:func:`~judgekit.formats.rubric_file.juror_rubric`), over its own provider client,
so each juror's answers are cached under its own rubric version and priced at its own
model's price: a rerun after one juror changed asks only that juror. The jurors of a run are
asked at once.

A juror that got no answer (after its retries) leaves the run without a jury verdict: a
jury that heard only some jurors is not the jury calibrated. Nothing is recorded for the
run, the other jurors' answers stay cached, and a rerun asks only the juror that failed.
The jury's verdict holds each juror's (``jurors``), its tokens and cost are their sums, and
its latency is the slowest juror's (they are asked together). Under a selective promotion the
jury abstains by its own confidence, the share of its jurors agreeing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from judgekit.errors import ProviderError
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import rubric_version
from judgekit.formats.run import Run
from judgekit.formats.verdict import JurorVerdict, Verdict
from judgekit.judging.abstention import decide_abstention
from judgekit.judging.budget import Budget
from judgekit.judging.judge import Judge
from judgekit.judging.judge_loop import JudgingLoop, JudgingStopped
from judgekit.judging.judged_input import input_digest
from judgekit.judging.jury_combine import combine_scores
from judgekit.judging.tally import JudgeTally

if TYPE_CHECKING:
    from judgekit.formats.task import TaskSet

__all__ = ["JurorFailed", "JuryJudge", "juror_verdict"]


class JurorFailed(ProviderError):
    """One juror got no answer: the jury has no verdict on the run."""

    def __init__(self, juror: Judge, error: ProviderError) -> None:
        super().__init__(
            f"juror {juror.model}: {error}",
            retryable=error.retryable,
            unreachable=error.unreachable,
        )
        self.juror = juror
        self.error = error


def juror_verdict(verdict: Verdict) -> JurorVerdict:
    """What a juror's own verdict keeps inside the jury's."""
    return JurorVerdict(
        model=verdict.model,
        status="scored" if verdict.status == "scored" else "unscored",
        score=verdict.score,
        reason=verdict.reason,
        unscored_reason=verdict.unscored_reason,
        input_tokens=verdict.input_tokens,
        output_tokens=verdict.output_tokens,
        cost_usd=verdict.cost_usd,
        latency_s=verdict.latency_s,
        cached=verdict.cached,
        endpoint=verdict.endpoint,
    )


class JuryJudge(JudgingLoop):
    """Judges runs with a jury rubric through one :class:`Judge` per juror, in the rubric's
    order of jurors."""

    def __init__(
        self,
        rubric: Rubric,
        jurors: Sequence[Judge],
        *,
        tasks: TaskSet | None = None,
        budget: Budget | None = None,
        abstain_below: float | None = None,
    ) -> None:
        if rubric.judge.combine is None:
            raise ValueError(f"rubric {rubric.id} names no jury")
        self.rubric = rubric
        self.combine = rubric.judge.combine
        self.jurors = list(jurors)
        self.model = rubric.judge.model
        self.version = rubric_version(rubric)
        self.tasks = tasks
        self.budget = budget
        self.tally = JudgeTally(abstain_below=abstain_below)
        self.tally.jurors = [(juror.model, juror.tally) for juror in self.jurors]

    async def judge(self, run: Run) -> Verdict:
        """The jury's verdict on one run; :class:`JurorFailed` when a juror got no answer."""
        try:
            outcomes = await asyncio.gather(
                *(juror.judge(run) for juror in self.jurors), return_exceptions=True
            )
        finally:
            self._add_juror_counts()
        verdicts: list[Verdict] = []
        for juror, outcome in zip(self.jurors, outcomes, strict=True):
            if isinstance(outcome, ProviderError):
                raise JurorFailed(juror, outcome)
            if isinstance(outcome, BaseException):
                raise outcome  # over the budget, bad data, or a bug
            verdicts.append(outcome)
        verdict = self._verdict(run, verdicts)
        if verdict.status == "scored":
            verdict = decide_abstention(verdict, self.tally.abstain_below)
        self._count(verdict)
        return verdict

    def _stop_for(self, error: ProviderError) -> JudgingStopped | None:
        if isinstance(error, JurorFailed):
            stop = error.juror._stop_for(error.error)
            return None if stop is None else JudgingStopped(f"juror {error.juror.model}: {stop}")
        return None

    def _verdict(self, run: Run, verdicts: list[Verdict]) -> Verdict:
        scores = [v.score if v.status == "scored" else None for v in verdicts]
        combined = combine_scores(self.combine, scores)
        costs = [v.cost_usd for v in verdicts]
        latencies = [v.latency_s for v in verdicts if v.latency_s is not None]
        task = self.tasks.get(run.task_id) if self.tasks is not None else None
        return Verdict(
            run_id=run.run_id,
            rubric_id=self.rubric.id,
            rubric_version=self.version,
            model=self.model,
            status="unscored" if combined.score is None else "scored",
            score=combined.score,
            reason=combined.reason if combined.score is not None else None,
            unscored_reason=combined.reason if combined.score is None else None,
            confidence=combined.confidence,
            input_tokens=sum(v.input_tokens for v in verdicts),
            output_tokens=sum(v.output_tokens for v in verdicts),
            cost_usd=None if None in costs else sum(c for c in costs if c is not None),
            latency_s=max(latencies) if latencies else None,
            cached=all(v.cached for v in verdicts),
            at=datetime.now(UTC),
            input_digest=input_digest(self.rubric, run, task),
            jurors=[juror_verdict(v) for v in verdicts],
        )

    def _add_juror_counts(self) -> None:
        """The jury's calls, tokens and money: its jurors' together."""
        tally, parts = self.tally, [juror.tally for juror in self.jurors]
        tally.api_calls = sum(part.api_calls for part in parts)
        tally.cache_hits = sum(part.cache_hits for part in parts)
        tally.input_tokens = sum(part.input_tokens for part in parts)
        tally.output_tokens = sum(part.output_tokens for part in parts)
        tally.cost_usd = sum(part.cost_usd for part in parts)
        tally.unknown_cost = any(part.unknown_cost for part in parts)
        unpriced = [part.unpriced_model for part in parts if part.unpriced_model]
        tally.unpriced_model = unpriced[0] if unpriced else None
        sources = sorted({part.price_source for part in parts if part.price_source})
        tally.price_source = ", ".join(sources) or None
