"""judgekit's equality rules, and the ``$coerce`` conversions that loosen them."""

from __future__ import annotations

import re
from typing import Any

_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def coerce_to(expected: Any, actual: Any) -> Any:
    """Convert ``actual`` towards the type of ``expected`` (for ``$coerce``).

    >>> coerce_to(3, " 3.0 "), coerce_to(True, "TRUE"), coerce_to(3, "4_2")
    (3.0, True, '4_2')
    """
    if isinstance(expected, bool):
        if isinstance(actual, str) and actual.strip().lower() in ("true", "false"):
            return actual.strip().lower() == "true"
        return actual
    if isinstance(expected, int | float) and isinstance(actual, str):
        # Plain decimal numbers only: float() would also take "4_2", "inf" and non-ASCII digits.
        text = actual.strip()
        return float(text) if _PLAIN_NUMBER.fullmatch(text) else actual
    if (
        isinstance(expected, str)
        and isinstance(actual, int | float)
        and not isinstance(actual, bool)
    ):
        try:
            return actual if float(expected) != actual else expected
        except ValueError:
            return str(actual)
    return actual


def values_equal(expected: Any, actual: Any, *, coerce: bool = False) -> bool:
    """Equality with judgekit's rules (numbers by value, bools apart, exact strings).

    >>> values_equal({"a": [1, 2.0]}, {"a": [1.0, 2]}), values_equal([True], [1])
    (True, False)
    """
    if coerce:
        actual = coerce_to(expected, actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return bool(expected == actual)
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and expected.keys() == actual.keys()
            and all(values_equal(v, actual[k], coerce=coerce) for k, v in expected.items())
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(
                values_equal(e, a, coerce=coerce) for e, a in zip(expected, actual, strict=True)
            )
        )
    return type(expected) is type(actual) and bool(expected == actual)


def not_a_number_hint(actual: Any) -> str:
    """The hint added when a numeric matcher got a string (``$coerce`` would convert it)."""
    if isinstance(actual, str):
        return " (a string, not a number; set $coerce: true to accept numeric strings)"
    return ""
