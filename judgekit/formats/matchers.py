"""The argument-matcher language of task files.

A plain value means "equal"; a mapping whose keys all start with ``$`` is a matcher::

    city: {$one_of: [Denver, "Denver, CO"]}
    seats: {$approx: 1, $abs: 0}
    note: {$regex: "^re: .*", $optional: true}

Matchers nest inside plain dicts and lists. A spec is compiled once, when the task file is
loaded, into a tree of small objects whose ``check(actual)`` returns ``None`` on a match or
a :class:`Mismatch` saying where and why. Compiling validates the spec: an unknown operator,
a bad regex or an unimportable ``$custom`` function raises :class:`MatcherSpecError`.

Equality rules: strings compare exactly; ints and floats by value (``3 == 3.0``); booleans
are never numbers; ``"3"`` equals ``3`` only under ``$coerce: true``.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from judgekit._util.matching import maximum_matching
from judgekit._util.references import UnresolvedReference, resolve_reference, split_reference
from judgekit.errors import ConfigError

__all__ = [
    "OPERATORS",
    "Matcher",
    "MatcherSpecError",
    "Mismatch",
    "compile_matcher",
    "render_path",
    "render_value",
    "values_equal",
]

PRIMARY_OPERATORS = (
    "$eq",
    "$any",
    "$absent",
    "$one_of",
    "$regex",
    "$approx",
    "$contains",
    "$subset",
    "$icase",
    "$type",
    "$custom",
    "$gt",
    "$gte",
    "$lt",
    "$lte",
)
MODIFIERS = ("$optional", "$coerce", "$abs", "$rel")
OPERATORS = PRIMARY_OPERATORS + MODIFIERS

_TYPES: dict[str, Callable[[Any], bool]] = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


Where = tuple[str | int, ...]


class MatcherSpecError(ValueError):
    """A matcher spec is invalid; ``where`` is the path inside the spec."""

    def __init__(self, message: str, where: Where = ()) -> None:
        self.message = message
        self.where = where
        shown = render_path(where)
        super().__init__(f"{shown}: {message}" if shown else message)


def render_path(parts: Where, prefix: str = "") -> str:
    """``("a", 0, "b")`` as ``a[0].b`` (after ``prefix`` when given)."""
    text = prefix
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


@dataclass(frozen=True, slots=True)
class Mismatch:
    """Why a value did not match: ``path`` inside the checked value, and a message."""

    path: tuple[str | int, ...]
    message: str

    def under(self, part: str | int) -> Mismatch:
        return Mismatch((part, *self.path), self.message)

    def dotted(self, prefix: str = "") -> str:
        return render_path(self.path, prefix)


def render_value(value: Any, limit: int = 80) -> str:
    """A short, unambiguous rendering of a value for reasons: strings quoted."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _kind(value: Any) -> str:
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


_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def _not_a_number(actual: Any) -> str:
    if isinstance(actual, str):
        return " (a string, not a number; set $coerce: true to accept numeric strings)"
    return ""


def _coerce_to(expected: Any, actual: Any) -> Any:
    """Convert ``actual`` towards the type of ``expected`` (for ``$coerce``)."""
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
    """Equality with judgekit's rules (numbers by value, bools apart, exact strings)."""
    if coerce:
        actual = _coerce_to(expected, actual)
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


class Matcher(ABC):
    """A compiled matcher. ``optional`` lets the value be absent from its parent dict."""

    optional: bool = False
    absent: bool = False  # true only for $absent: the key must not be there

    @abstractmethod
    def check(self, actual: Any) -> Mismatch | None:
        """None when ``actual`` matches, else where and why it does not."""

    def describe(self) -> str:
        """A short rendering of what is expected, for 'missing' reasons."""
        return "a value"


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
        if not self.coerce and _kind(self.expected) != _kind(actual):
            message += f" (a {_kind(actual)}, not a {_kind(self.expected)})"
        return Mismatch((), message)

    def describe(self) -> str:
        return render_value(self.expected)


class DictOf(Matcher):
    """A plain dict: each listed key matches; unlisted keys fail unless ``extra`` allows."""

    def __init__(self, children: dict[str, Matcher], *, allow_extra: bool, noun: str) -> None:
        self.children = children
        self.allow_extra = allow_extra
        self.noun = noun  # "argument" at the top of a call, "key" deeper down

    def check(self, actual: Any) -> Mismatch | None:
        if not isinstance(actual, dict):
            return Mismatch((), f"expected a dict, got {render_value(actual)}")
        for key, child in self.children.items():
            if key not in actual:
                if child.optional or child.absent:
                    continue
                return Mismatch((key,), f"missing {self.noun} (expected {child.describe()})")
            found = child.check(actual[key])
            if found is not None:
                return found.under(key)
        if not self.allow_extra:
            for key in actual:
                if key not in self.children:
                    return Mismatch(
                        (key,), f"unexpected {self.noun} (value {render_value(actual[key])})"
                    )
        return None

    def mismatches(self, actual: dict[str, Any]) -> list[Mismatch]:
        """Every failing key, not only the first (for reasons that say all that is wrong)."""
        found: list[Mismatch] = []
        for key, child in self.children.items():
            if key not in actual:
                if not (child.optional or child.absent):
                    found.append(
                        Mismatch((key,), f"missing {self.noun} (expected {child.describe()})")
                    )
                continue
            problem = child.check(actual[key])
            if problem is not None:
                found.append(problem.under(key))
        if not self.allow_extra:
            found.extend(
                Mismatch((key,), f"unexpected {self.noun} (value {render_value(value)})")
                for key, value in actual.items()
                if key not in self.children
            )
        return found

    def describe(self) -> str:
        return "{" + ", ".join(f"{k}: {m.describe()}" for k, m in self.children.items()) + "}"


class ListOf(Matcher):
    def __init__(self, items: list[Matcher]) -> None:
        self.items = items

    def check(self, actual: Any) -> Mismatch | None:
        if not isinstance(actual, list):
            return Mismatch((), f"expected a list, got {render_value(actual)}")
        if len(actual) != len(self.items):
            return Mismatch(
                (), f"expected {len(self.items)} items, got {len(actual)}: {render_value(actual)}"
            )
        for index, (item, value) in enumerate(zip(self.items, actual, strict=True)):
            found = item.check(value)
            if found is not None:
                return found.under(index)
        return None

    def describe(self) -> str:
        return "[" + ", ".join(m.describe() for m in self.items) + "]"


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
        if any(option.check(actual) is None for option in self.options):
            return None
        shown = ", ".join(option.describe() for option in self.options)
        return Mismatch((), f"expected one of [{shown}], got {render_value(actual)}")

    def describe(self) -> str:
        return "one of [" + ", ".join(option.describe() for option in self.options) + "]"


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


class Approx(Matcher):
    def __init__(self, target: int | float, abs_tol: float, rel_tol: float, coerce: bool) -> None:
        self.target = target
        self.abs_tol = abs_tol
        self.rel_tol = rel_tol
        self.coerce = coerce

    def tolerance(self) -> float:
        return max(self.abs_tol, self.rel_tol * abs(self.target))

    def check(self, actual: Any) -> Mismatch | None:
        value = _coerce_to(self.target, actual) if self.coerce else actual
        if (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and abs(value - self.target) <= self.tolerance()
        ):
            return None
        return Mismatch(
            (), f"expected {self.describe()}, got {render_value(actual)}{_not_a_number(actual)}"
        )

    def describe(self) -> str:
        return f"{render_value(self.target)} ± {self.tolerance():g}"


class Contains(Matcher):
    """Substring(s) of a string, or item(s) of a list (each item may be a matcher)."""

    def __init__(self, needles: list[Any], item_matchers: list[Matcher]) -> None:
        self.needles = needles
        self.item_matchers = item_matchers

    def check(self, actual: Any) -> Mismatch | None:
        if isinstance(actual, str):
            for needle in self.needles:
                if not isinstance(needle, str) or needle not in actual:
                    return Mismatch(
                        (),
                        f"expected to contain {render_value(needle)}, got {render_value(actual)}",
                    )
            return None
        if isinstance(actual, list):
            for matcher in self.item_matchers:
                if not any(matcher.check(item) is None for item in actual):
                    return Mismatch(
                        (),
                        f"expected an item matching {matcher.describe()}, got {render_value(actual)}",
                    )
            return None
        return Mismatch((), f"expected a string or list to search, got {render_value(actual)}")

    def describe(self) -> str:
        return "containing " + ", ".join(render_value(n) for n in self.needles)


class Subset(Matcher):
    """A dict with at least these keys, or a list with at least these items (any order)."""

    def __init__(self, dict_part: DictOf | None, list_items: list[Matcher] | None) -> None:
        self.dict_part = dict_part
        self.list_items = list_items

    def check(self, actual: Any) -> Mismatch | None:
        if self.dict_part is not None:
            return self.dict_part.check(actual)
        assert self.list_items is not None
        if not isinstance(actual, list):
            return Mismatch((), f"expected a list, got {render_value(actual)}")
        pairs = [[m.check(item) is None for item in actual] for m in self.list_items]
        matched = sum(1 for owner in maximum_matching(pairs, len(actual)) if owner != -1)
        if matched == len(self.list_items):
            return None
        return Mismatch(
            (),
            f"expected items {self.describe()} among {render_value(actual)} "
            f"({len(self.list_items) - matched} not found)",
        )

    def describe(self) -> str:
        if self.dict_part is not None:
            return self.dict_part.describe()
        assert self.list_items is not None
        return "[" + ", ".join(m.describe() for m in self.list_items) + "]"


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


class TypeIs(Matcher):
    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.tests = [_TYPES[name] for name in names]

    def check(self, actual: Any) -> Mismatch | None:
        if any(test(actual) for test in self.tests):
            return None
        return Mismatch(
            (),
            f"expected type {' or '.join(self.names)}, got {_kind(actual)} {render_value(actual)}",
        )

    def describe(self) -> str:
        return f"a value of type {' or '.join(self.names)}"


class Custom(Matcher):
    """``$custom: "module:function"``; the function takes the value and returns a bool,
    or ``(bool, reason)``. ``function`` is None when the task was loaded without its code
    (``resolve_code=False``): such a matcher describes itself but cannot check."""

    def __init__(self, reference: str, function: Callable[[Any], Any] | None) -> None:
        self.reference = reference
        self.function = function

    def check(self, actual: Any) -> Mismatch | None:
        if self.function is None:
            raise ConfigError(
                f"$custom {self.reference!r} was not imported: its task was loaded without "
                "code (resolve_code=False); load the tasks with resolve_code=True to grade"
            )
        outcome = self.function(actual)
        reason = None
        if isinstance(outcome, tuple):
            outcome, reason = outcome
        if outcome:
            return None
        detail = f": {reason}" if reason else ""
        return Mismatch((), f"rejected by {self.reference}{detail} (got {render_value(actual)})")

    def describe(self) -> str:
        return f"a value accepted by {self.reference}"


_COMPARISONS: dict[str, tuple[str, Callable[[float, float], bool]]] = {
    "$gt": (">", lambda a, b: a > b),
    "$gte": ("≥", lambda a, b: a >= b),
    "$lt": ("<", lambda a, b: a < b),
    "$lte": ("≤", lambda a, b: a <= b),
}


class Bound(Matcher):
    """A numeric bound: ``{$lte: 90}`` (refund at most the order total)."""

    def __init__(self, op: str, limit: float, coerce: bool) -> None:
        self.symbol, self.compare = _COMPARISONS[op]
        self.limit = limit
        self.coerce = coerce

    def check(self, actual: Any) -> Mismatch | None:
        value = _coerce_to(self.limit, actual) if self.coerce else actual
        if (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and self.compare(value, self.limit)
        ):
            return None
        return Mismatch(
            (), f"expected {self.describe()}, got {render_value(actual)}{_not_a_number(actual)}"
        )

    def describe(self) -> str:
        return f"a number {self.symbol} {render_value(self.limit)}"


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


def _import_custom(reference: str, where: Where, here: Where) -> Callable[[Any], Any]:
    try:
        function = resolve_reference(reference, what="$custom")
    except UnresolvedReference as exc:
        raise MatcherSpecError(str(exc), where) from None
    kind = _not_own_function(function)
    if kind is not None:
        raise MatcherSpecError(
            f"{reference!r} is {kind}; $custom names a Python function defined in your own "
            "source (module:function)",
            here,
        )
    return function  # type: ignore[no-any-return]


def _not_own_function(obj: Any) -> str | None:
    """What ``obj`` is when it is not a Python function of the user's own source, else None.

    A suite is the user's code, but a ``$custom`` that names ``os:system``,
    ``builtins:eval`` or ``subprocess:call`` hands the agent's argument to the system: no
    checker is written that way, so the name is refused rather than called. Built-in and C
    functions, classes, callable objects and the standard library's functions are refused;
    a function defined in Python source outside the standard library (yours, or a
    package's) is taken.
    """
    if inspect.ismethod(obj):
        obj = obj.__func__  # a bound method: judged by its function
    if inspect.isfunction(obj):
        module = str(getattr(obj, "__module__", None) or "")
        if module.partition(".")[0] in sys.stdlib_module_names:
            return "a standard-library function"
        return None
    if inspect.isbuiltin(obj) or inspect.ismethoddescriptor(obj):
        return "a built-in function"
    if inspect.isclass(obj):
        return "a class"
    if callable(obj):
        return f"a callable {type(obj).__name__} object, not a function"
    return "not a function"


def _is_operator_mapping(spec: Any) -> bool:
    return (
        isinstance(spec, dict)
        and bool(spec)
        and all(isinstance(k, str) and k.startswith("$") for k in spec)
    )


def _join(where: Where, part: str | int) -> Where:
    return (*where, part)


def compile_matcher(
    spec: Any,
    *,
    where: Where = (),
    coerce: bool = False,
    allow_extra_keys: bool = False,
    noun: str = "key",
    resolve_code: bool = True,
) -> Matcher:
    """Compile a matcher spec (a plain value, or a ``$``-operator mapping) into a Matcher.

    ``allow_extra_keys`` lets dicts at any depth hold keys the spec does not list (a task's
    ``extra_args: allow``); ``$eq`` still compares its value exactly. ``noun`` names the keys
    of the top-level dict in reasons ("argument" for a tool call's arguments).
    ``resolve_code=False`` imports nothing: a ``$custom`` matcher keeps its reference
    unresolved, and checking a value with it raises :class:`ConfigError`.

    >>> compile_matcher({"$one_of": ["Denver", "Denver, CO"]}).check("Denver") is None
    True
    >>> compile_matcher(3).check("3").message
    "expected 3, got '3' (a string, not a number)"
    """
    if isinstance(spec, dict):
        dollar = [k for k in spec if isinstance(k, str) and k.startswith("$")]
        if dollar and len(dollar) != len(spec):
            plain = [k for k in spec if k not in dollar]
            raise MatcherSpecError(
                f"mixes $-operators ({', '.join(dollar)}) with plain keys ({', '.join(map(str, plain))}); "
                "wrap a literal dict in $eq",
                where,
            )
        if _is_operator_mapping(spec):
            return _compile_operators(
                spec, where=where, coerce=coerce, lenient=allow_extra_keys, code=resolve_code
            )
        children = {
            str(key): compile_matcher(
                value,
                where=_join(where, str(key)),
                coerce=coerce,
                allow_extra_keys=allow_extra_keys,
                resolve_code=resolve_code,
            )
            for key, value in spec.items()
        }
        return DictOf(children, allow_extra=allow_extra_keys, noun=noun)
    if isinstance(spec, list):
        return ListOf(
            [
                compile_matcher(
                    item,
                    where=_join(where, i),
                    coerce=coerce,
                    allow_extra_keys=allow_extra_keys,
                    resolve_code=resolve_code,
                )
                for i, item in enumerate(spec)
            ]
        )
    if isinstance(spec, float) and math.isnan(spec):
        raise MatcherSpecError("NaN never equals anything; use $type: float", where)
    return Equals(spec, coerce)


def _finite_number(value: Any) -> bool:
    """An int or a float other than NaN and infinities (which no value matches sensibly)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _number(spec: dict[str, Any], key: str, where: Where) -> float:
    value = spec[key]
    if not _finite_number(value) or value < 0:
        raise MatcherSpecError(f"{key} must be a number ≥ 0, got {value!r}", where)
    return float(value)


def _compile_operators(
    spec: dict[str, Any], *, where: Where, coerce: bool, lenient: bool, code: bool
) -> Matcher:
    unknown = [k for k in spec if k not in OPERATORS]
    if unknown:
        raise MatcherSpecError(
            f"unknown operator {unknown[0]}; valid operators are {', '.join(OPERATORS)}", where
        )
    for flag in ("$optional", "$coerce"):
        if flag in spec and not isinstance(spec[flag], bool):
            raise MatcherSpecError(f"{flag} must be true or false, got {spec[flag]!r}", where)
    if ("$abs" in spec or "$rel" in spec) and "$approx" not in spec:
        raise MatcherSpecError("$abs and $rel go with $approx", where)
    coerce = coerce or bool(spec.get("$coerce", False))
    primaries = [k for k in spec if k in PRIMARY_OPERATORS]
    parts = [
        _compile_primary(op, spec, where=where, coerce=coerce, lenient=lenient, code=code)
        for op in primaries
    ]
    if not parts:
        raise MatcherSpecError(
            "$optional and $coerce go beside a matcher or $eq (e.g. {$eq: 3, $optional: true})",
            where,
        )
    matcher = parts[0] if len(parts) == 1 else AllOf(parts)
    if spec.get("$optional", False):
        if matcher.absent:
            raise MatcherSpecError("$absent is already optional; drop $optional", where)
        matcher.optional = True
    return matcher


def _compile_primary(
    op: str, spec: dict[str, Any], *, where: Where, coerce: bool, lenient: bool, code: bool
) -> Matcher:
    value = spec[op]
    here = _join(where, op)
    if op == "$eq":
        return Equals(value, coerce)
    if op == "$any":
        if value is not True:
            raise MatcherSpecError("$any takes true ($any: true)", where)
        return AnyValue()
    if op == "$absent":
        if value is not True:
            raise MatcherSpecError("$absent takes true ($absent: true)", where)
        if len(spec) > 1:
            raise MatcherSpecError("$absent stands alone", where)
        return Absent()
    if op == "$one_of":
        if not isinstance(value, list) or not value:
            raise MatcherSpecError("$one_of takes a non-empty list of acceptable values", where)
        return OneOf(
            [
                compile_matcher(
                    v,
                    where=_join(here, i),
                    coerce=coerce,
                    allow_extra_keys=lenient,
                    resolve_code=code,
                )
                for i, v in enumerate(value)
            ]
        )
    if op == "$regex":
        if not isinstance(value, str):
            raise MatcherSpecError(f"$regex takes a pattern string, got {value!r}", where)
        try:
            return Regex(re.compile(value), coerce)
        except re.error as exc:
            raise MatcherSpecError(f"bad regex {value!r}: {exc}", where) from None
    if op == "$approx":
        if not _finite_number(value):
            raise MatcherSpecError(f"$approx takes a finite number, got {value!r}", where)
        has_tolerance = "$abs" in spec or "$rel" in spec
        abs_tol = (
            _number(spec, "$abs", where) if "$abs" in spec else (0.0 if has_tolerance else 1e-12)
        )
        rel_tol = (
            _number(spec, "$rel", where) if "$rel" in spec else (0.0 if has_tolerance else 1e-6)
        )
        return Approx(value, abs_tol, rel_tol, coerce)
    if op == "$contains":
        needles = value if isinstance(value, list) else [value]
        if not needles:
            raise MatcherSpecError("$contains takes a value or a non-empty list of values", where)
        return Contains(
            needles,
            [
                compile_matcher(
                    n, where=here, coerce=coerce, allow_extra_keys=lenient, resolve_code=code
                )
                for n in needles
            ],
        )
    if op == "$subset":
        if isinstance(value, dict) and not _is_operator_mapping(value):
            part = compile_matcher(
                value, where=here, coerce=coerce, allow_extra_keys=True, resolve_code=code
            )
            assert isinstance(part, DictOf)
            return Subset(part, None)
        if isinstance(value, list):
            return Subset(
                None,
                [
                    compile_matcher(
                        v,
                        where=_join(here, i),
                        coerce=coerce,
                        allow_extra_keys=lenient,
                        resolve_code=code,
                    )
                    for i, v in enumerate(value)
                ],
            )
        raise MatcherSpecError("$subset takes a dict (keys that must be there) or a list", where)
    if op == "$icase":
        if not isinstance(value, str):
            raise MatcherSpecError(f"$icase takes a string, got {value!r}", where)
        return CaseInsensitive(value)
    if op == "$type":
        names = value if isinstance(value, list) else [value]
        bad = [n for n in names if n not in _TYPES]
        if bad or not names:
            raise MatcherSpecError(
                f"$type {bad[0] if bad else value!r} is not a type; valid types are "
                f"{', '.join(_TYPES)}",
                where,
            )
        return TypeIs(names)
    if op in _COMPARISONS:
        if not _finite_number(value):
            raise MatcherSpecError(f"{op} takes a finite number, got {value!r}", where)
        return Bound(op, value, coerce)
    if op == "$custom":
        if not isinstance(value, str):
            raise MatcherSpecError(f"$custom takes 'module:function', got {value!r}", where)
        if not code:
            try:
                split_reference(value, what="$custom")
            except UnresolvedReference as exc:
                raise MatcherSpecError(str(exc), where) from None
            return Custom(value, None)
        return Custom(value, _import_custom(value, where, here))
    raise AssertionError(f"operator {op} has no compiler")  # PRIMARY_OPERATORS is exhaustive
