"""Numbers of the command line that click's ``FloatRange`` would let through: ``nan`` compares
false with every bound (``--max-cost nan`` would be no budget at all, ``--alpha nan`` a test
that never alerts) and ``inf`` is no amount either. A wait of ``inf`` or ``1e300`` seconds
overflows the platform's clock (``OverflowError: timestamp out of range``), and under
``--timeout nan`` every trial timed out at once."""

from __future__ import annotations

import math
from typing import Any, Final

import click

__all__ = ["DOLLARS", "MAX_SECONDS", "FiniteFloatRange", "ModelRate", "Seconds"]


class FiniteFloatRange(click.FloatRange):
    """A ``FloatRange`` of finite numbers only."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


DOLLARS = FiniteFloatRange(min=0, min_open=True)
"""A budget in US dollars: more than nothing, and finite."""


MAX_SECONDS: Final = 365 * 24 * 3600.0
"""A year: longer than any trial or poll should wait, and well within what a clock holds."""


class Seconds(FiniteFloatRange):
    """Seconds from 0 (or above 0, with ``above_zero``) to :data:`MAX_SECONDS`."""

    name = "seconds"

    def __init__(self, *, above_zero: bool = False) -> None:
        super().__init__(min=0, min_open=above_zero, max=MAX_SECONDS)
        self.span = "above 0 and at most a year" if above_zero else "from 0 to a year"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            self.fail(f"{value!r} is not a number of seconds {self.span}", param, ctx)


class ModelRate(click.ParamType[tuple[str, float]]):
    """``provider/model=rate``: a model's own rate, from 0 to 1."""

    name = "provider/model=rate"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        model, equals, text = str(value).rpartition("=")
        provider, slash, name = model.partition("/")
        if not (equals and provider and slash and name):
            self.fail(f"{value!r} is not provider/model=rate, e.g. openai/b=0.15", param, ctx)
        rate = FiniteFloatRange(0, 1).convert(text, param, ctx)
        return (model, rate)
