"""A task's answer check: what the agent must have told the user, compiled when it loads.

``expect_answer`` lists items; each is a plain value (a string or a number), found when it
appears in a text, or a ``$``-matcher applied to a whole text (``{$regex: "(?s).*\\bB7\\b.*"}``).
``answer_normalise`` rewrites every text (and every plain value) before the search:

- ``lowercase``: ``str.lower()``;
- ``remove_commas``: every ``,`` dropped (``1,042.50`` reads as ``1042.50``);
- ``collapse_spaces``: each run of white space becomes one space, none at either end.

``[lowercase, remove_commas]`` is τ-bench's rule for its ``outputs`` (``output.lower() in
content.lower().replace(",", "")``); the value is rewritten too, which changes nothing for a
value without a comma (all of τ-bench's) and lets ``'1,042.50'`` be written as users write it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from judgekit.formats.matchers import Matcher, MatcherSpecError, compile_matcher, render_value

AnswerNormalisation = Literal["lowercase", "remove_commas", "collapse_spaces"]

_ITEM_KINDS = "a string, a number, or a $-matcher such as {$regex: ...}"


def normalise_text(text: str, steps: Sequence[AnswerNormalisation]) -> str:
    """``text`` rewritten by each step in turn.

    >>> normalise_text("Total:  1,042.50 USD", ["lowercase", "remove_commas", "collapse_spaces"])
    'total: 1042.50 usd'
    """
    for step in steps:
        if step == "lowercase":
            text = text.lower()
        elif step == "remove_commas":
            text = text.replace(",", "")
        else:
            text = " ".join(text.split())
    return text


@dataclass(frozen=True)
class AnswerItem:
    """One item of ``expect_answer``: ``needle`` (normalised) for a plain value, else
    ``matcher``; ``shown`` is the item as written, for reasons."""

    shown: str
    needle: str | None = None
    matcher: Matcher | None = None

    def found_in(self, text: str) -> bool:
        """True when this item is in ``text`` (already normalised)."""
        if self.needle is not None:
            return self.needle in text
        assert self.matcher is not None
        return self.matcher.check(text) is None


def compile_answer_items(
    items: Sequence[Any], steps: Sequence[AnswerNormalisation], *, resolve_code: bool = True
) -> list[AnswerItem]:
    """Each item of ``expect_answer`` checked and compiled; a bad one raises
    :class:`MatcherSpecError` naming ``expect_answer[i]`` and what would be valid."""
    if not items:
        raise MatcherSpecError(
            f"lists nothing to find; give at least one item ({_ITEM_KINDS})", ("expect_answer",)
        )
    return [_item(item, index, steps, resolve_code) for index, item in enumerate(items)]


def _item(
    item: Any, index: int, steps: Sequence[AnswerNormalisation], resolve_code: bool
) -> AnswerItem:
    where = ("expect_answer", index)
    shown = render_value(item)
    if isinstance(item, bool) or item is None:
        raise MatcherSpecError(f"expected {_ITEM_KINDS}, got {shown}", where)
    if isinstance(item, int | float):
        if not math.isfinite(item):
            raise MatcherSpecError(f"expected a finite number, got {item}", where)
        # A number is searched as Python writes it (1042.5); quote it to keep digits ('1042.50').
        item = str(item)
    if isinstance(item, str):
        needle = normalise_text(item, steps)
        if not needle:
            raise MatcherSpecError(
                f"{shown} is empty once normalised, so every text holds it", where
            )
        return AnswerItem(shown=shown, needle=needle)
    if isinstance(item, dict) and item and all(str(key).startswith("$") for key in item):
        matcher = compile_matcher(item, where=where, resolve_code=resolve_code)
        return AnswerItem(shown=matcher.describe(), matcher=matcher)
    raise MatcherSpecError(f"expected {_ITEM_KINDS}, got {shown}", where)
