"""The token counts and latency BFCL writes beside each result, as the run's usage.

BFCL's result lines carry ``input_token_count``, ``output_token_count`` and ``latency``
(seconds): one number for a single-turn entry, a list per turn of lists per step for a
multi-turn one (``base_handler.py`` in ShishirPatil/gorilla). A run's usage is their sum.
A field that is missing, or holds anything but non-negative numbers (whole numbers for
tokens), gives no figure rather than a partial one.
"""

from __future__ import annotations

import math
from typing import Any

from judgekit.formats.run import Usage

__all__ = ["bfcl_latency", "bfcl_usage"]


def bfcl_usage(entry: dict[str, Any]) -> Usage | None:
    """The entry's token counts, None unless both are there and whole numbers."""
    inputs = _total(entry.get("input_token_count"), whole=True)
    outputs = _total(entry.get("output_token_count"), whole=True)
    if inputs is None or outputs is None:
        return None
    return Usage(input_tokens=int(inputs), output_tokens=int(outputs))


def bfcl_latency(entry: dict[str, Any]) -> float | None:
    """The entry's latency in seconds, summed over its steps; None when absent or unreadable."""
    return _total(entry.get("latency"), whole=False)


def _total(value: Any, *, whole: bool) -> float | None:
    """The sum of a number or nested lists of numbers; None for anything else."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, list):
        parts = [_total(item, whole=whole) for item in value]
        if any(part is None for part in parts):
            return None
        return sum(part for part in parts if part is not None)
    if isinstance(value, int) or (not whole and isinstance(value, float)):
        return value if value >= 0 and math.isfinite(value) else None
    return None
