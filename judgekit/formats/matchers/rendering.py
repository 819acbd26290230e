"""How matchers show values and paths in their reasons: short, unambiguous, one line."""

from __future__ import annotations

import json
from typing import Any

Where = tuple[str | int, ...]


def render_path(parts: Where, prefix: str = "") -> str:
    """``("a", 0, "b")`` as ``a[0].b`` (after ``prefix`` when given).

    >>> render_path(("a", 0, "b")), render_path(("b",), "x")
    ('a[0].b', 'x.b')
    """
    text = prefix
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def render_value(value: Any, limit: int = 80) -> str:
    """A short, unambiguous rendering of a value for reasons: strings quoted.

    >>> render_value("3"), render_value(3), render_value({"b": True, "a": None})
    ("'3'", '3', '{"a": null, "b": true}')
    """
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def kind_of(value: Any) -> str:
    """The JSON kind of a value as reasons name it: null, bool, number, string, list, dict."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "dict"
    return type(value).__name__
