"""The loop every judge runs over a runs file, whoever answers for a run (one model's
:class:`~judgekit.judging.judge.Judge`, or a jury's): runs started ``concurrency`` at once,
each verdict handed on as it finishes, runs without an answer counted, and judging stopped
when no run could get one.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable

from judgekit.errors import ProviderError
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.judging.budget import Budget, OverBudget
from judgekit.judging.tally import JudgeTally
from judgekit.judging.verdict_parsing import unscored_kind

__all__ = ["JudgingLoop", "JudgingStopped"]


class JudgingStopped(ProviderError):
    """The provider failed in a way that every later request would too (wrong key, unknown
    model, an endpoint never reached): judging stopped; the verdicts that finished stand."""


class JudgingLoop(ABC):
    """Judges many runs through :meth:`judge`, counting what it did in :attr:`tally`."""

    budget: Budget | None
    tally: JudgeTally

    @abstractmethod
    async def judge(self, run: Run) -> Verdict:
        """The verdict on one run; :class:`ProviderError` when no answer came back."""

    @abstractmethod
    def _stop_for(self, error: ProviderError) -> JudgingStopped | None:
        """Why judging must stop after ``error``, or None when later runs may get answers."""

    async def judge_many(
        self,
        runs: Iterable[Run],
        *,
        concurrency: int,
        on_verdict: Callable[[Verdict], None] | None = None,
    ) -> JudgeTally:
        """Judge every run, ``concurrency`` at once; with a budget, stop starting new runs
        once a request was refused for lack of it (that run is counted in
        ``tally.over_budget``, not judged).

        Verdicts are handed to ``on_verdict`` as they finish (in completion order), so a
        caller can append them to a file and lose nothing that finished. A run whose
        provider call failed after its retries is counted in ``tally.not_judged``; a failure
        that would fail every run raises :class:`JudgingStopped` once the runs in flight have
        been cancelled.
        """
        pending: set[asyncio.Task[Verdict]] = set()
        try:
            await self._judge_all(runs, pending, concurrency, on_verdict)
        finally:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        return self.tally

    async def _judge_all(
        self,
        runs: Iterable[Run],
        pending: set[asyncio.Task[Verdict]],
        concurrency: int,
        on_verdict: Callable[[Verdict], None] | None,
    ) -> None:
        iterator = iter(runs)
        exhausted = False
        while True:
            while not exhausted and len(pending) < concurrency * 2:
                if self.budget is not None and self.budget.refused:
                    self.tally.stopped_by_budget = True
                    exhausted = True
                    break
                run = next(iterator, None)
                if run is None:
                    exhausted = True
                    break
                pending.add(asyncio.create_task(self.judge(run)))
            if not pending:
                return
            done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            pending -= done
            stop: BaseException | None = None
            for finished in done:  # every one, so no task's outcome goes unread
                error = finished.exception()
                if isinstance(error, ProviderError):
                    stop = stop or self._not_judged(error)
                elif isinstance(error, OverBudget):
                    self.tally.over_budget += 1
                    self.tally.stopped_by_budget = True
                elif error is not None:
                    stop = stop or error  # bad data (a missing reference) or a bug
                elif on_verdict is not None:
                    on_verdict(finished.result())
            if stop is not None:
                raise stop

    def _not_judged(self, error: ProviderError) -> JudgingStopped | None:
        """Count a run that got no answer; say how to stop when no run can get one."""
        self.tally.not_judged += 1
        self.tally.not_judged_reasons[str(error)] += 1
        return self._stop_for(error)

    def count_kept(self, verdict: Verdict) -> None:
        """Count a verdict an earlier session wrote (resumed, so nothing is spent on it)."""
        self.tally.kept += 1
        self._count(verdict)

    def _count(self, verdict: Verdict) -> None:
        tally = self.tally
        tally.verdicts += 1
        if verdict.status == "unscored":
            tally.unscored += 1
            tally.unscored_reasons[unscored_kind(verdict.unscored_reason)] += 1
        tally.abstained += verdict.status == "abstained"
        if verdict.status == "scored":
            tally.scores[str(verdict.score)] += 1
