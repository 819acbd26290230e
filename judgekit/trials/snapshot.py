"""Copies of JSON-like world state, without ``copy.deepcopy``'s machinery for any object.

A trial copies the initial state, the final state and every call's arguments and result, so
the copy sits on the hot path of every trial.
"""

from __future__ import annotations

import copy
from typing import Any

_SCALARS = (str, int, float, bool, type(None))


def snapshot(value: Any) -> Any:
    """An independent copy of ``value``; dicts and lists are rebuilt, scalars shared,
    anything else deep-copied.

    >>> state = {"orders": [{"id": 1}]}
    >>> copied = snapshot(state)
    >>> copied["orders"][0]["id"] = 2
    >>> state["orders"][0]["id"]
    1
    """
    if isinstance(value, _SCALARS):
        return value
    if type(value) is dict:
        return {key: snapshot(item) for key, item in value.items()}
    if type(value) is list:
        return [snapshot(item) for item in value]
    return copy.deepcopy(value)
