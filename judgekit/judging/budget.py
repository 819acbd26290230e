"""``--max-cost``: no request is sent whose cost could take the spending past the budget.

Before a request goes out, its cost is projected from an upper bound on its tokens: at most
one input token per byte of its messages (a byte-level tokenizer's token covers at least one
byte) plus a few per message, and the full ``max_tokens`` of output. What requests in flight
may still cost is reserved, so concurrent requests cannot pass the budget together; once a
request has answered, its real cost replaces its reservation (and a request that found no
room while others were in flight may find it then). A jury's judges share one budget, each
request priced for the model it goes to.

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
from collections.abc import Awaitable, Callable, Sequence

from judgekit.errors import ConfigError
from judgekit.judging.pricing import PriceTable
from judgekit.providers.chat import ChatRequest, ChatResponse

__all__ = ["TOKENS_PER_MESSAGE", "Budget", "OverBudget"]

# A chat format's own tokens around each message (role markers, separators): a generous
# bound for the OpenAI and Anthropic formats.
TOKENS_PER_MESSAGE = 8


class OverBudget(Exception):
    """A request was not sent: what it could cost might take the spending past --max-cost."""


class Budget:
    """At most ``max_usd`` spent by the judges of ``model`` (a jury's: several models),
    priced by ``prices``; a request is priced for its ``model``, by default the first."""

    def __init__(self, max_usd: float, *, prices: PriceTable, model: str | Sequence[str]) -> None:
        if not (math.isfinite(max_usd) and max_usd > 0):  # nan would compare as no budget
            raise ConfigError(f"--max-cost must be a positive number of dollars, not {max_usd}")
        models = [model] if isinstance(model, str) else list(model)
        for name in models:
            if prices.cost(name, 0, 0) is None:
                raise ConfigError(
                    f"--max-cost needs the price of {name}: {prices.unknown_hint(name)}"
                )
        self.max_usd = max_usd
        self.spent_usd = 0.0
        self.refused = False  # set by the caller once a request is given up for lack of budget
        self._prices = prices
        self._model = models[0]
        self._reserved = 0.0
        self._settled: asyncio.Condition | None = None  # made inside the event loop

    def projected_cost(self, request: ChatRequest, model: str | None = None) -> float:
        """The most ``request`` to ``model`` can cost."""
        input_bound = sum(
            len(message.content.encode("utf-8")) + TOKENS_PER_MESSAGE
            for message in request.messages
        )
        cost = self._prices.cost(model or self._model, input_bound, request.max_tokens)
        assert cost is not None  # checked in __init__
        return cost

    def reserve(self, request: ChatRequest, model: str | None = None) -> float | None:
        """Reserve the most ``request`` can cost and return it; None (and nothing
        reserved) when that could take the spending past the budget."""
        projected = self.projected_cost(request, model)
        if self.spent_usd + self._reserved + projected > self.max_usd:
            return None
        self._reserved += projected
        return projected

    @property
    def in_flight(self) -> bool:
        """Whether requests hold reservations (their settling may make room)."""
        return self._reserved > 1e-15

    def settle(
        self, reserved: float, input_tokens: int, output_tokens: int, model: str | None = None
    ) -> None:
        """A request answered (or failed): its reservation gives way to what it cost."""
        self._reserved -= reserved
        cost = self._prices.cost(model or self._model, input_tokens, output_tokens)
        self.spent_usd += cost or 0.0

    async def call(
        self,
        request: ChatRequest,
        send: Callable[[ChatRequest], Awaitable[ChatResponse]],
        *,
        model: str | None = None,
    ) -> ChatResponse:
        """``send(request)`` once its most possible cost fits, waiting for requests in flight
        to settle while they hold the room; :class:`OverBudget` when none are left to."""
        if self._settled is None:
            self._settled = asyncio.Condition()
        settled = self._settled
        async with settled:
            while (reserved := self.reserve(request, model)) is None:
                if not self.in_flight:
                    self.refused = True
                    raise OverBudget(self.projected_cost(request, model))
                await settled.wait()
        input_tokens = output_tokens = 0  # no answer, nothing billed
        try:
            response = await send(request)
            input_tokens, output_tokens = response.input_tokens, response.output_tokens
        finally:
            self.settle(reserved, input_tokens, output_tokens, model)
            async with settled:
                settled.notify_all()
        return response
