"""``--max-cost``: no request is sent whose cost could take the spending past the budget.

Before a request goes out, its cost is projected from an upper bound on its tokens: at most
one input token per byte of its messages (a byte-level tokenizer's token covers at least one
byte) plus a few per message, and the full ``max_tokens`` of output. What requests in flight
may still cost is reserved, so concurrent requests cannot pass the budget together; once a
request has answered, its real cost replaces its reservation (and a request that found no
room while others were in flight may find it then). A jury's judges share one budget, each
request priced for the model it goes to.

A budget may also answer to a :class:`SharedLimit` (``--max-cost-per-day``: a day's spend kept
in the store, shared by every judge recording into it): a request is sent only when both have
room, and what it cost is settled in both.

>>> from judgekit.providers.chat import ChatMessage, ChatRequest
>>> from judgekit.judging.pricing import Price, PriceTable
>>> prices = PriceTable({"openai/m": Price(input=1.0, output=4.0)})
>>> request = ChatRequest(model="m", max_tokens=100,
...                       messages=(ChatMessage(role="user", content="x" * 992),))
>>> budget = Budget(0.002, prices=prices, model="openai/m")
>>> round(budget.projected_cost(request), 6)
0.0014
>>> first, second = budget.reserve(request), budget.reserve(request)
>>> first.usd, second  # the second could pass $0.002
(0.0014, None)
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from judgekit.errors import ConfigError
from judgekit.judging.pricing import PriceTable
from judgekit.providers.chat import TOKENS_PER_MESSAGE, ChatRequest, ChatResponse

__all__ = [
    "TOKENS_PER_MESSAGE",
    "Budget",
    "OverBudget",
    "Reservation",
    "SharedLimit",
    "check_priced",
]


class OverBudget(Exception):
    """A request was not sent: what it could cost might take the spending past --max-cost
    (or the shared limit, --max-cost-per-day)."""


def check_priced(prices: PriceTable, model: str, limit: str) -> None:
    """A spending limit needs the model's price: :class:`ConfigError` naming ``limit``."""
    if prices.cost(model, 0, 0) is None:
        raise ConfigError(f"{limit} needs the price of {model}: {prices.unknown_hint(model)}")


class SharedLimit(Protocol):
    """A limit other judges spend from too (``--max-cost-per-day``)."""

    option: str  # the option that set it, for messages

    def reserve(self, usd: float) -> object | None:
        """Hold ``usd``; a token for :meth:`settle`, or None when it could pass the limit."""

    def settle(self, token: object, spent: float) -> None:
        """The request held by ``token`` cost ``spent``."""

    def stop_message(self) -> str:
        """Why judging stopped at this limit, and when it lifts."""


@dataclass(frozen=True)
class Reservation:
    """What a request in flight may cost, and its hold on the shared limit."""

    usd: float
    shared: object | None = None


class Budget:
    """At most ``max_usd`` (None: no limit of its own) spent by the judges of ``model`` (a
    jury's: several models), priced by ``prices``, and within the ``shared`` limit when there
    is one; a request is priced for its ``model``, by default the first."""

    def __init__(
        self,
        max_usd: float | None,
        *,
        prices: PriceTable,
        model: str | Sequence[str],
        shared: SharedLimit | None = None,
    ) -> None:
        if max_usd is None and shared is None:
            raise ConfigError("a budget needs --max-cost, a shared limit, or both")
        # nan would compare as no budget
        if max_usd is not None and not (math.isfinite(max_usd) and max_usd > 0):
            raise ConfigError(f"--max-cost must be a positive number of dollars, not {max_usd}")
        limits = ([] if max_usd is None else ["--max-cost"]) + (
            [] if shared is None else [shared.option]
        )
        models = [model] if isinstance(model, str) else list(model)
        for name in models:
            check_priced(prices, name, " and ".join(limits))
        self.max_usd = max_usd
        self.spent_usd = 0.0
        self.refused = False  # set by the caller once a request is given up for lack of budget
        self.refused_by: str | None = None  # the option whose limit refused it
        self._shared = shared
        self._prices = prices
        self._model = models[0]
        self._reserved = 0.0
        self._settled: asyncio.Condition | None = None  # made inside the event loop

    def projected_cost(self, request: ChatRequest, model: str | None = None) -> float:
        """The most ``request`` to ``model`` can cost."""
        cost = self._prices.cost(
            model or self._model, request.input_token_bound, request.max_tokens
        )
        assert cost is not None  # checked in __init__
        return cost

    def reserve(self, request: ChatRequest, model: str | None = None) -> Reservation | None:
        """Reserve the most ``request`` can cost; None (and nothing reserved) when that
        could take the spending past the budget or the shared limit."""
        projected = self.projected_cost(request, model)
        if self.max_usd is not None and self.spent_usd + self._reserved + projected > self.max_usd:
            self.refused_by = "--max-cost"
            return None
        held = None
        if self._shared is not None:
            held = self._shared.reserve(projected)
            if held is None:
                self.refused_by = self._shared.option
                return None
        self._reserved += projected
        return Reservation(projected, held)

    def stop_message(self) -> str | None:
        """Why the shared limit stopped judging; None when it did not."""
        if self._shared is None or self.refused_by != self._shared.option:
            return None
        return self._shared.stop_message()

    @property
    def in_flight(self) -> bool:
        """Whether requests hold reservations (their settling may make room)."""
        return self._reserved > 1e-15

    def settle(
        self,
        reserved: Reservation,
        input_tokens: int,
        output_tokens: int,
        model: str | None = None,
    ) -> None:
        """A request answered (or failed): its reservation gives way to what it cost."""
        self._reserved -= reserved.usd
        cost = self._prices.cost(model or self._model, input_tokens, output_tokens) or 0.0
        self.spent_usd += cost
        if self._shared is not None:
            self._shared.settle(reserved.shared, cost)

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
