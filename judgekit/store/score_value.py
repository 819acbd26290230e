"""A verdict's score as the number the store keeps beside it, for averages and pass rates."""

from __future__ import annotations

from typing import Any


def score_value(score: Any) -> float | None:
    """A verdict's score as a number: pass 1 and fail 0, a number as itself, else None.

    >>> [score_value(s) for s in ("pass", "fail", 4, True, "A", None)]
    [1.0, 0.0, 4.0, 1.0, None, None]
    """
    if score == "pass":
        return 1.0
    if score == "fail":
        return 0.0
    if isinstance(score, bool | int | float):
        return float(score)
    return None
