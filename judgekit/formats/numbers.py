"""Numbers in judgekit's file formats: always finite, never negative where they count or cost.

JSON as Python reads it accepts ``NaN`` and ``Infinity``; one of them in a cost would turn
every mean and every gate comparison into ``nan``. These types refuse them where a file is
read, so the error names the file, the line and the field::

    results.jsonl:3: cost_usd: must be a finite number (got nan)
    runs.jsonl:7: usage.input_tokens: must not be negative (got -12)
"""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import AfterValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

__all__ = ["Count", "NonNegativeFloat", "Share"]


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise PydanticCustomError("finite_number", "must be a finite number")
    return value


def _not_negative(value: float) -> float:
    if _finite(value) < 0:
        raise PydanticCustomError("negative_number", "must not be negative")
    return value


def _share(value: float) -> float:
    if not 0 <= _finite(value) <= 1:
        raise PydanticCustomError("share", "must be a share between 0 and 1")
    return value


def _count(value: int) -> int:
    if value < 0:
        raise PydanticCustomError("negative_number", "must not be negative")
    return value


NonNegativeFloat = Annotated[
    float,
    AfterValidator(_not_negative),
    WithJsonSchema({"type": "number", "minimum": 0}),
]
"""A cost, a duration: finite and at least 0."""

Share = Annotated[
    float,
    AfterValidator(_share),
    WithJsonSchema({"type": "number", "minimum": 0, "maximum": 1}),
]
"""A proportion: finite, from 0 to 1."""

Count = Annotated[
    int,
    AfterValidator(_count),
    WithJsonSchema({"type": "integer", "minimum": 0}),
]
"""Tokens, turns, tool calls: a whole number, at least 0."""
