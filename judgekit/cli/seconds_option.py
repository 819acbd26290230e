"""A number of seconds given on the command line: finite, and short enough to wait for.

``click.FloatRange`` lets ``inf``, ``nan`` and ``1e300`` through: a wait that long overflows
the platform's clock (``OverflowError: timestamp out of range``) and ``nan`` compares false
with everything, so a trial under ``--timeout nan`` timed out at once, every one of them.
"""

from __future__ import annotations

import math
from typing import Any, Final

import click

__all__ = ["MAX_SECONDS", "Seconds"]

MAX_SECONDS: Final = 365 * 24 * 3600.0
"""A year: longer than any trial or poll should wait, and well within what a clock holds."""


class Seconds(click.ParamType[float]):
    """Seconds from 0 (or above 0, with ``above_zero``) to :data:`MAX_SECONDS`."""

    name = "seconds"

    def __init__(self, *, above_zero: bool = False) -> None:
        self.above_zero = above_zero

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        low_ok = seconds > 0 if self.above_zero else seconds >= 0
        if not (low_ok and seconds <= MAX_SECONDS):  # nan fails both
            span = "above 0 and at most a year" if self.above_zero else "from 0 to a year"
            self.fail(f"{value!r} is not a number of seconds {span}", param, ctx)
        return seconds
