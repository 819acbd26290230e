"""``--max-cost``: no request is sent whose cost could take the spending past the budget.

Before a request goes out, its cost is projected from an upper bound on its tokens: at most
one input token per byte of its messages (a byte-level tokenizer's token covers at least one
byte) plus a few per message, and the full ``max_tokens`` of output. What requests in flight
may still cost is reserved, so concurrent requests cannot pass the budget together; once a
request has answered, its real cost replaces its reservation (and a request that found no
room while others were in flight may find it then).

>>> from judgekit.providers.chat import ChatMessage, ChatRequest
>>> from judgekit.judging.pricing import Price, PriceTable
>>> prices = PriceTable({"openai/m": Price(input=1.0, output=4.0)})
>>> request = ChatRequest(model="m", max_tokens=100,
...                       messages=(ChatMessage(role="user", content="x" * 992),))
>>> budget = Budget(0.002, prices=prices, model="openai/m")
>>> round(budget.projected_cost(request), 6)
0.0014
>>> budget.reserve(request), budget.reserve(request)  # the second could pass $0.002
(0.0014, None)
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable

from judgekit.errors import ConfigError
from judgekit.judging.pricing import PriceTable
from judgekit.providers.chat import TOKENS_PER_MESSAGE, ChatRequest, ChatResponse

__all__ = ["TOKENS_PER_MESSAGE", "Budget", "OverBudget"]


class OverBudget(Exception):
    """A request was not sent: what it could cost might take the spending past --max-cost."""


class Budget:
    """At most ``max_usd`` spent by one judge on ``model``, priced by ``prices``."""

    def __init__(self, max_usd: float, *, prices: PriceTable, model: str) -> None:
        if not (math.isfinite(max_usd) and max_usd > 0):  # nan would compare as no budget
            raise ConfigError(f"--max-cost must be a positive number of dollars, not {max_usd}")
        if prices.cost(model, 0, 0) is None:
            raise ConfigError(
                f"--max-cost needs the price of {model}: {prices.unknown_hint(model)}"
            )
        self.max_usd = max_usd
        self.spent_usd = 0.0
        self.refused = False  # set by the caller once a request is given up for lack of budget
        self._prices = prices
        self._model = model
        self._reserved = 0.0
        self._settled: asyncio.Condition | None = None  # made inside the event loop

    def projected_cost(self, request: ChatRequest) -> float:
        """The most ``request`` can cost."""
        cost = self._prices.cost(self._model, request.input_token_bound, request.max_tokens)
        assert cost is not None  # checked in __init__
        return cost

    def reserve(self, request: ChatRequest) -> float | None:
        """Reserve the most ``request`` can cost and return it; None (and nothing
        reserved) when that could take the spending past the budget."""
        projected = self.projected_cost(request)
        if self.spent_usd + self._reserved + projected > self.max_usd:
            return None
        self._reserved += projected
        return projected

    @property
    def in_flight(self) -> bool:
        """Whether requests hold reservations (their settling may make room)."""
        return self._reserved > 1e-15

    def settle(self, reserved: float, input_tokens: int, output_tokens: int) -> None:
        """A request answered (or failed): its reservation gives way to what it cost."""
        self._reserved -= reserved
        cost = self._prices.cost(self._model, input_tokens, output_tokens)
        self.spent_usd += cost or 0.0

    async def call(
        self, request: ChatRequest, send: Callable[[ChatRequest], Awaitable[ChatResponse]]
    ) -> ChatResponse:
        """``send(request)`` once its most possible cost fits, waiting for requests in flight
        to settle while they hold the room; :class:`OverBudget` when none are left to."""
        if self._settled is None:
            self._settled = asyncio.Condition()
        settled = self._settled
        async with settled:
            while (reserved := self.reserve(request)) is None:
                if not self.in_flight:
                    self.refused = True
                    raise OverBudget(self.projected_cost(request))
                await settled.wait()
        input_tokens = output_tokens = 0  # no answer, nothing billed
        try:
            response = await send(request)
            input_tokens, output_tokens = response.input_tokens, response.output_tokens
        finally:
            self.settle(reserved, input_tokens, output_tokens)
            async with settled:
                settled.notify_all()
        return response
