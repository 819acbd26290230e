"""Canonical forms of tool arguments, so that equal calls compare equal.

Key order does not matter, ``3`` and ``3.0`` are the same value, and ``True`` is never ``1``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from judgekit.graders.run_view import CallView

_BOOL = "__bool__"


def canonical(value: Any) -> Hashable:
    """A hashable form of a JSON value in which equal values are equal.

    >>> canonical({"b": 3.0, "a": [1, True]}) == canonical({"a": [1.0, True], "b": 3})
    True
    """
    if isinstance(value, bool):
        return (_BOOL, value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), canonical(v)) for k, v in value.items())))
    if isinstance(value, list | tuple):
        return ("list", tuple(canonical(v) for v in value))
    if isinstance(value, int | float | str) or value is None:
        return value
    return ("repr", repr(value))


def call_key(call: CallView) -> Hashable:
    """What makes two calls "the same call": the tool and its canonical arguments."""
    if call.arguments_error is not None:
        return (call.name, "raw", call.raw_arguments)
    return (call.name, canonical(call.args))
