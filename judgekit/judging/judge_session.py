"""Judges over one provider client: the client opened, a :class:`Judge` built for each rubric
asked, every judge run on one event loop and the client closed at its end.

The provider's connection pool belongs to the event loop that used it, so the client is
closed inside that loop (:meth:`JudgeSession.run`, or ``async with``), whatever happened.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar

from judgekit.judging.judge import Judge
from judgekit.providers.client import ChatClient

if TYPE_CHECKING:
    from judgekit.formats.rubric import Rubric
    from judgekit.formats.task import TaskSet
    from judgekit.judging.budget import Budget
    from judgekit.judging.cache import JudgeCache
    from judgekit.judging.pricing import PriceTable
    from judgekit.providers.chat import ChatProvider
    from judgekit.providers.rate_limits import RateLimits

__all__ = ["JudgeSession", "run_in_sessions"]

T = TypeVar("T")


class JudgeSession:
    """One client to ``provider`` (``concurrency`` requests in flight, ``max_attempts`` each;
    None: the client's default) shared by the judges it builds, with one cache, price table
    and suite, within ``rate_limits`` (``--rpm``, ``--tpm``). ``client`` replaces the usual
    :class:`ChatClient` (the batch APIs')."""

    def __init__(
        self,
        provider: ChatProvider,
        *,
        concurrency: int,
        max_attempts: int | None = None,
        cache: JudgeCache | None,
        prices: PriceTable,
        tasks: TaskSet | None = None,
        client: ChatClient | None = None,
        rate_limits: RateLimits | None = None,
    ) -> None:
        if client is None:
            client = ChatClient(
                provider,
                concurrency=concurrency,
                max_attempts=ChatClient.MAX_ATTEMPTS if max_attempts is None else max_attempts,
                rate_limits=rate_limits,
            )
        self.client = client
        self.cache = cache
        self.prices = prices
        self.tasks = tasks

    def judge(
        self,
        rubric: Rubric,
        *,
        samples: int | None = None,
        budget: Budget | None = None,
        abstain_below: float | None = None,
    ) -> Judge:
        """A judge of ``rubric`` with its own judge model, over this session's client."""
        return Judge(
            rubric,
            self.client,
            model=rubric.judge.model,
            cache=self.cache,
            prices=self.prices,
            tasks=self.tasks,
            samples=samples,
            budget=budget,
            abstain_below=abstain_below,
        )

    def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """``work()`` on a new event loop, the client closed in it when the work ends."""

        async def closing() -> T:
            async with self:
                return await work()

        return asyncio.run(closing())

    async def aclose(self) -> None:
        """Release the provider's connections."""
        await self.client.aclose()

    async def __aenter__(self) -> JudgeSession:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()


def run_in_sessions(sessions: Sequence[JudgeSession], work: Callable[[], Awaitable[T]]) -> T:
    """``work()`` on a new event loop, every session's client closed in it when the work
    ends (a jury's jurors each have their own)."""

    async def closing() -> T:
        async with AsyncExitStack() as stack:
            for session in sessions:
                await stack.enter_async_context(session)
            return await work()

    return asyncio.run(closing())
