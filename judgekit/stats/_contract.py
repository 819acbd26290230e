"""The contract every statistic keeps: what impossible input raises and what an undefined
value becomes. No numpy here, so the light statistics (pass@k, Wilson, Holm) load fast.

Impossible input raises :class:`StatisticsInputError` (a ``ValueError``, and a
:class:`~judgekit.errors.CalibrationError` so the CLI reports it in one line). A value the
data cannot define is ``nan`` with an :class:`UndefinedStatisticWarning`, unless the caller
passes ``replace_undefined_by=``: then it is that value, and nothing is warned.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from statistics import NormalDist
from typing import Literal, TypeAlias

from judgekit.errors import CalibrationError

# What an undefined value becomes: "warn" (nan and a warning) or a number returned silently.
ReplaceUndefined: TypeAlias = float | Literal["warn"]


class StatisticsInputError(CalibrationError, ValueError):
    """The input cannot be computed on at all (a negative count, unequal lengths, a bad option)."""


# The name calibration code has long caught; the same class.
CalibrationInputError = StatisticsInputError


class UndefinedStatisticWarning(RuntimeWarning):
    """A statistic is undefined for the data given; the value returned is nan."""


def check_replacement(replace_undefined_by: ReplaceUndefined) -> None:
    """Refuse a ``replace_undefined_by=`` that is neither ``"warn"`` nor a number."""
    if replace_undefined_by == "warn":
        return
    if isinstance(replace_undefined_by, bool) or not isinstance(replace_undefined_by, numbers.Real):
        raise StatisticsInputError(
            f"replace_undefined_by must be 'warn' or a number, got {replace_undefined_by!r}"
        )


def undefined(message: str, replace_undefined_by: ReplaceUndefined = "warn") -> float:
    """The value of a statistic the data cannot define: nan, warned, or the caller's stand-in."""
    if isinstance(replace_undefined_by, str):
        warnings.warn(message, UndefinedStatisticWarning, stacklevel=3)
        return math.nan
    return float(replace_undefined_by)


def z_value(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise StatisticsInputError(f"confidence must be between 0 and 1, got {confidence!r}")
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def check_same_length(
    name_1: str, seq_1: Sequence[object], name_2: str, seq_2: Sequence[object]
) -> None:
    if len(seq_1) != len(seq_2):
        raise StatisticsInputError(
            f"{name_1} and {name_2} must have the same length, got {len(seq_1)} and {len(seq_2)}"
        )
