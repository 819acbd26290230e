"""Matchers of one value: equal, any, absent, one of, approximately, bounded, of a type,
and several at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from judgekit._util.number_format import setting
from judgekit.formats.matchers.base import Matcher, Mismatch
from judgekit.formats.matchers.equality import coerce_to, not_a_number_hint, values_equal
from judgekit.formats.matchers.rendering import kind_of, render_value

TYPES: dict[str, Callable[[Any], bool]] = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}

COMPARISONS: dict[str, tuple[str, Callable[[float, float], bool]]] = {
    "$gt": (">", lambda a, b: a > b),
    "$gte": ("≥", lambda a, b: a >= b),
    "$lt": ("<", lambda a, b: a < b),
    "$lte": ("≤", lambda a, b: a <= b),
}


class Equals(Matcher):
    def __init__(self, expected: Any, coerce: bool) -> None:
        self.expected = expected
        self.coerce = coerce

    def check(self, actual: Any) -> Mismatch | None:
        # The usual case, a string or int compared with one of its own type, skips the rules.
        if type(actual) is type(self.expected) and type(actual) in (str, int):
            if actual == self.expected:
                return None
        elif values_equal(self.expected, actual, coerce=self.coerce):
            return None
        message = f"expected {render_value(self.expected)}, got {render_value(actual)}"
        if not self.coerce and kind_of(self.expected) != kind_of(actual):
            message += f" (a {kind_of(actual)}, not a {kind_of(self.expected)})"
        return Mismatch((), message)

    def matches(self, actual: Any) -> bool:
        # check() without its message: one_of tries options that mostly fail.
        if type(actual) is type(self.expected) and type(actual) in (str, int):
            return bool(actual == self.expected)
        return values_equal(self.expected, actual, coerce=self.coerce)

    def describe(self) -> str:
        return render_value(self.expected)


class AnyValue(Matcher):
    def check(self, actual: Any) -> Mismatch | None:
        return None

    def describe(self) -> str:
        return "any value"


class Absent(Matcher):
    absent = True

    def check(self, actual: Any) -> Mismatch | None:
        return Mismatch((), f"expected to be absent, got {render_value(actual)}")

    def describe(self) -> str:
        return "absent"


class OneOf(Matcher):
    def __init__(self, options: list[Matcher]) -> None:
        self.options = options

    def check(self, actual: Any) -> Mismatch | None:
        if any(option.matches(actual) for option in self.options):
            return None
        shown = ", ".join(option.describe() for option in self.options)
        return Mismatch((), f"expected one of [{shown}], got {render_value(actual)}")

    def describe(self) -> str:
        return "one of [" + ", ".join(option.describe() for option in self.options) + "]"


class Approx(Matcher):
    def __init__(self, target: int | float, abs_tol: float, rel_tol: float, coerce: bool) -> None:
        self.target = target
        self.abs_tol = abs_tol
        self.rel_tol = rel_tol
        self.coerce = coerce

    def tolerance(self) -> float:
        return max(self.abs_tol, self.rel_tol * abs(self.target))

    def check(self, actual: Any) -> Mismatch | None:
        value = coerce_to(self.target, actual) if self.coerce else actual
        if (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and abs(value - self.target) <= self.tolerance()
        ):
            return None
        return Mismatch(
            (), f"expected {self.describe()}, got {render_value(actual)}{not_a_number_hint(actual)}"
        )

    def describe(self) -> str:
        return f"{render_value(self.target)} ± {setting(self.tolerance())}"


class Bound(Matcher):
    """A numeric bound: ``{$lte: 90}`` (refund at most the order total)."""

    def __init__(self, op: str, limit: float, coerce: bool) -> None:
        self.symbol, self.compare = COMPARISONS[op]
        self.limit = limit
        self.coerce = coerce

    def check(self, actual: Any) -> Mismatch | None:
        value = coerce_to(self.limit, actual) if self.coerce else actual
        if (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and self.compare(value, self.limit)
        ):
            return None
        return Mismatch(
            (), f"expected {self.describe()}, got {render_value(actual)}{not_a_number_hint(actual)}"
        )

    def describe(self) -> str:
        return f"a number {self.symbol} {render_value(self.limit)}"


class TypeIs(Matcher):
    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.tests = [TYPES[name] for name in names]

    def check(self, actual: Any) -> Mismatch | None:
        if any(test(actual) for test in self.tests):
            return None
        return Mismatch(
            (),
            f"expected type {' or '.join(self.names)}, got {kind_of(actual)} {render_value(actual)}",
        )

    def describe(self) -> str:
        return f"a value of type {' or '.join(self.names)}"


class AllOf(Matcher):
    """Several operators in one mapping: every one must match."""

    def __init__(self, parts: list[Matcher]) -> None:
        self.parts = parts

    def check(self, actual: Any) -> Mismatch | None:
        for part in self.parts:
            found = part.check(actual)
            if found is not None:
                return found
        return None

    def describe(self) -> str:
        return " and ".join(part.describe() for part in self.parts)
