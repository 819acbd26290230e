"""Matchers of text: a regular expression, and equality ignoring case and white space."""

from __future__ import annotations

import re
from typing import Any

from judgekit.formats.matchers.base import Matcher, Mismatch
from judgekit.formats.matchers.rendering import render_value


class Regex(Matcher):
    def __init__(self, pattern: re.Pattern[str], coerce: bool) -> None:
        self.pattern = pattern
        self.coerce = coerce

    def check(self, actual: Any) -> Mismatch | None:
        value = actual
        if self.coerce and isinstance(actual, int | float) and not isinstance(actual, bool):
            value = str(actual)
        if isinstance(value, str) and self.pattern.fullmatch(value):
            return None
        return Mismatch(
            (), f"expected to match /{self.pattern.pattern}/, got {render_value(actual)}"
        )

    def describe(self) -> str:
        return f"/{self.pattern.pattern}/"


class CaseInsensitive(Matcher):
    def __init__(self, expected: str) -> None:
        self.expected = expected
        self.folded = _fold(expected)

    def check(self, actual: Any) -> Mismatch | None:
        if isinstance(actual, str) and _fold(actual) == self.folded:
            return None
        return Mismatch(
            (),
            f"expected {render_value(self.expected)} (ignoring case and white space), "
            f"got {render_value(actual)}",
        )

    def describe(self) -> str:
        return render_value(self.expected)


def _fold(text: str) -> str:
    return "".join(text.split()).casefold()
