"""What every matcher shares: the Matcher interface, a Mismatch, and the spec error."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from judgekit.errors import SpecError
from judgekit.formats.matchers.rendering import Where, render_path


class MatcherSpecError(SpecError):
    """A matcher spec is invalid; ``where`` is the path inside the spec."""

    def __init__(self, message: str, where: Where = ()) -> None:
        self.message = message
        self.where = where
        shown = render_path(where)
        super().__init__(f"{shown}: {message}" if shown else message)


@dataclass(frozen=True, slots=True)
class Mismatch:
    """Why a value did not match: ``path`` inside the checked value, and a message."""

    path: tuple[str | int, ...]
    message: str

    def under(self, part: str | int) -> Mismatch:
        return Mismatch((part, *self.path), self.message)

    def dotted(self, prefix: str = "") -> str:
        return render_path(self.path, prefix)


class Matcher(ABC):
    """A compiled matcher. ``optional`` lets the value be absent from its parent dict."""

    optional: bool = False
    absent: bool = False  # true only for $absent: the key must not be there

    @abstractmethod
    def check(self, actual: Any) -> Mismatch | None:
        """None when ``actual`` matches, else where and why it does not."""

    def matches(self, actual: Any) -> bool:
        """``check(actual) is None``; a matcher may answer without writing the reason."""
        return self.check(actual) is None

    def describe(self) -> str:
        """A short rendering of what is expected, for 'missing' reasons."""
        return "a value"
