"""The judge and the optimizer as align asks them: the real judging path (prompts, cache,
verdict parsing, budget) through the real providers, on one event loop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from judgekit.errors import JudgekitError
from judgekit.formats.rubric import Rubric
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.judging.budget import Budget
from judgekit.judging.judge_session import JudgeSession
from judgekit.providers.chat import ChatMessage, ChatRequest
from judgekit.providers.client import ChatClient

__all__ = ["AlignmentStopped", "Asker", "Spending"]


class AlignmentStopped(JudgekitError):
    """Judging stopped before every candidate was judged (the budget ran out): nothing is
    written, since no candidate can be compared on all its runs."""


@dataclass
class Spending:
    """What align asked, and what it cost."""

    judge_calls: int = 0
    cache_hits: int = 0
    optimizer_calls: int = 0
    not_judged: int = 0  # runs that got no answer after the retries
    cost_usd: float = 0.0
    unknown_cost: bool = False
    reasons: list[str] = field(default_factory=list)


class Asker:
    """Asks the judge about runs under any rubric, and the optimizer for a rewrite."""

    def __init__(
        self,
        judges: JudgeSession,
        *,
        optimizer: tuple[ChatClient, str] | None,
        budget: Budget | None,
        concurrency: int,
    ) -> None:
        self.judges = judges  # the judge's client, cache, prices and suite
        self.optimizer = optimizer  # the client and the optimizer's own model name
        self.budget = budget
        self.concurrency = concurrency
        self.spending = Spending()

    async def verdicts(self, rubric: Rubric, runs: Sequence[Run]) -> dict[str, Verdict]:
        """The verdict of each run under ``rubric`` (a run with no answer has none)."""
        judge = self.judges.judge(rubric, budget=self.budget)
        found: dict[str, Verdict] = {}
        tally = await judge.judge_many(
            runs, concurrency=self.concurrency, on_verdict=lambda v: found.update({v.run_id: v})
        )
        spent = self.spending
        spent.judge_calls += tally.api_calls
        spent.cache_hits += tally.cache_hits
        spent.not_judged += tally.not_judged
        spent.cost_usd += tally.cost_usd
        spent.unknown_cost = spent.unknown_cost or tally.unknown_cost
        spent.reasons += list(tally.not_judged_reasons)
        if tally.stopped_by_budget:
            raise AlignmentStopped(
                f"--max-cost reached after {spent.judge_calls} judge requests; nothing written"
            )
        return found

    async def rewrite(self, messages: tuple[ChatMessage, ...]) -> str:
        """The optimizer's answer to ``messages``."""
        if self.optimizer is None:
            raise ValueError("no optimizer model was given")
        client, model_name = self.optimizer
        self.spending.optimizer_calls += 1
        response = await client.complete(
            ChatRequest(model=model_name, messages=messages, temperature=0.0, max_tokens=4096)
        )
        return response.text

    async def aclose(self) -> None:
        await self.judges.aclose()
        if self.optimizer is not None and self.optimizer[0] is not self.judges.client:
            await self.optimizer[0].aclose()
