"""Numbers of the command line that click's ``FloatRange`` would let through: ``nan`` compares
false with every bound (``--max-cost nan`` would be no budget at all, ``--alpha nan`` a test
that never alerts) and ``inf`` is no amount either."""

from __future__ import annotations

import math
from typing import Any

import click

__all__ = ["DOLLARS", "FiniteFloatRange"]


class FiniteFloatRange(click.FloatRange):
    """A ``FloatRange`` of finite numbers only."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


DOLLARS = FiniteFloatRange(min=0, min_open=True)
"""A budget in US dollars: more than nothing, and finite."""
