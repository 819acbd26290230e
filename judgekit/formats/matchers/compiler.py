"""Compiling a matcher spec into a tree of matchers, validating the spec on the way.

A plain dict compiles to :class:`DictOf`, a list to :class:`ListOf`, any other plain value
to :class:`Equals`; a mapping of ``$``-operators goes through :data:`_COMPILERS`, one small
function per operator, each refusing a bad value with the fix.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from judgekit.formats.matchers.base import Matcher, MatcherSpecError
from judgekit.formats.matchers.containers import Contains, DictOf, ListOf, Subset, Unordered
from judgekit.formats.matchers.custom import custom_matcher
from judgekit.formats.matchers.rendering import Where
from judgekit.formats.matchers.strings import CaseInsensitive, Regex
from judgekit.formats.matchers.values import (
    COMPARISONS,
    TYPES,
    Absent,
    AllOf,
    AnyValue,
    Approx,
    Bound,
    Equals,
    OneOf,
    TypeIs,
)


@dataclass(frozen=True, slots=True)
class _Options:
    """What holds for a whole spec: ``$coerce``, extra keys allowed, ``$custom`` imported."""

    coerce: bool
    lenient: bool
    code: bool


@dataclass(frozen=True, slots=True)
class _Operator:
    """One primary ``$``-operator being compiled, inside the mapping ``spec`` at ``where``."""

    name: str
    spec: dict[str, Any]
    where: Where
    options: _Options

    @property
    def value(self) -> Any:
        return self.spec[self.name]

    @property
    def here(self) -> Where:
        """The operator's own path (``where`` names the mapping around it)."""
        return (*self.where, self.name)

    def error(self, message: str) -> MatcherSpecError:
        return MatcherSpecError(message, self.where)

    def compile(self, spec: Any, where: Where, *, lenient: bool | None = None) -> Matcher:
        """A nested spec, with this operator's options (``lenient`` overrides extra keys)."""
        options = self.options if lenient is None else replace(self.options, lenient=lenient)
        return _compile(spec, where, options)

    def compile_each(self, specs: list[Any]) -> list[Matcher]:
        return [self.compile(spec, (*self.here, i)) for i, spec in enumerate(specs)]


def _finite_number(value: Any) -> bool:
    """An int or a float other than NaN and infinities (which no value matches sensibly)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_operator_mapping(spec: Any) -> bool:
    return (
        isinstance(spec, dict)
        and bool(spec)
        and all(isinstance(k, str) and k.startswith("$") for k in spec)
    )


def _eq(op: _Operator) -> Matcher:
    return Equals(op.value, op.options.coerce)


def _any(op: _Operator) -> Matcher:
    if op.value is not True:
        raise op.error("$any takes true ($any: true)")
    return AnyValue()


def _absent(op: _Operator) -> Matcher:
    if op.value is not True:
        raise op.error("$absent takes true ($absent: true)")
    if len(op.spec) > 1:
        raise op.error("$absent stands alone")
    return Absent()


def _one_of(op: _Operator) -> Matcher:
    if not isinstance(op.value, list) or not op.value:
        raise op.error("$one_of takes a non-empty list of acceptable values")
    return OneOf(op.compile_each(op.value))


def _regex(op: _Operator) -> Matcher:
    if not isinstance(op.value, str):
        raise op.error(f"$regex takes a pattern string, got {op.value!r}")
    try:
        return Regex(re.compile(op.value), op.options.coerce)
    except re.error as exc:
        raise op.error(f"bad regex {op.value!r}: {exc}") from None


def _tolerance(op: _Operator, key: str, default: float) -> float:
    if key not in op.spec:
        return default
    value = op.spec[key]
    if not _finite_number(value) or value < 0:
        raise op.error(f"{key} must be a number ≥ 0, got {value!r}")
    return float(value)


def _approx(op: _Operator) -> Matcher:
    if not _finite_number(op.value):
        raise op.error(f"$approx takes a finite number, got {op.value!r}")
    # Either tolerance given means exactly what it says; neither means "equal up to rounding".
    has_tolerance = "$abs" in op.spec or "$rel" in op.spec
    abs_tol = _tolerance(op, "$abs", 0.0 if has_tolerance else 1e-12)
    rel_tol = _tolerance(op, "$rel", 0.0 if has_tolerance else 1e-6)
    return Approx(op.value, abs_tol, rel_tol, op.options.coerce)


def _contains(op: _Operator) -> Matcher:
    needles = op.value if isinstance(op.value, list) else [op.value]
    if not needles:
        raise op.error("$contains takes a value or a non-empty list of values")
    return Contains(needles, [op.compile(needle, op.here) for needle in needles])


def _subset(op: _Operator) -> Matcher:
    if isinstance(op.value, dict) and not _is_operator_mapping(op.value):
        part = op.compile(op.value, op.here, lenient=True)
        assert isinstance(part, DictOf)
        return Subset(part, None)
    if isinstance(op.value, list):
        return Subset(None, op.compile_each(op.value))
    raise op.error("$subset takes a dict (keys that must be there) or a list")


def _unordered(op: _Operator) -> Matcher:
    if not isinstance(op.value, list):
        raise op.error(
            f"$unordered takes a list of items (each a value or a matcher), got {op.value!r}"
        )
    return Unordered(op.compile_each(op.value))


def _icase(op: _Operator) -> Matcher:
    if not isinstance(op.value, str):
        raise op.error(f"$icase takes a string, got {op.value!r}")
    return CaseInsensitive(op.value)


def _type(op: _Operator) -> Matcher:
    names = op.value if isinstance(op.value, list) else [op.value]
    bad = [n for n in names if n not in TYPES]
    if bad or not names:
        raise op.error(
            f"$type {bad[0] if bad else op.value!r} is not a type; valid types are "
            f"{', '.join(TYPES)}"
        )
    return TypeIs(names)


def _custom(op: _Operator) -> Matcher:
    if not isinstance(op.value, str):
        raise op.error(f"$custom takes 'module:function', got {op.value!r}")
    return custom_matcher(op.value, where=op.where, here=op.here, resolve_code=op.options.code)


def _bound(op: _Operator) -> Matcher:
    if not _finite_number(op.value):
        raise op.error(f"{op.name} takes a finite number, got {op.value!r}")
    return Bound(op.name, op.value, op.options.coerce)


# In the order error messages list them.
_COMPILERS: dict[str, Callable[[_Operator], Matcher]] = {
    "$eq": _eq,
    "$any": _any,
    "$absent": _absent,
    "$one_of": _one_of,
    "$regex": _regex,
    "$approx": _approx,
    "$contains": _contains,
    "$subset": _subset,
    "$unordered": _unordered,
    "$icase": _icase,
    "$type": _type,
    "$custom": _custom,
    **dict.fromkeys(COMPARISONS, _bound),
}
PRIMARY_OPERATORS = tuple(_COMPILERS)
MODIFIERS = ("$optional", "$coerce", "$abs", "$rel")
OPERATORS = PRIMARY_OPERATORS + MODIFIERS


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
    return _compile(spec, where, _Options(coerce, allow_extra_keys, resolve_code), noun)


def _compile(spec: Any, where: Where, options: _Options, noun: str = "key") -> Matcher:
    if isinstance(spec, dict):
        return _compile_mapping(spec, where, options, noun)
    if isinstance(spec, list):
        return ListOf([_compile(item, (*where, i), options) for i, item in enumerate(spec)])
    if isinstance(spec, float) and math.isnan(spec):
        raise MatcherSpecError("NaN never equals anything; use $type: float", where)
    return Equals(spec, options.coerce)


def _compile_mapping(spec: dict[Any, Any], where: Where, options: _Options, noun: str) -> Matcher:
    dollar = [k for k in spec if isinstance(k, str) and k.startswith("$")]
    if dollar and len(dollar) != len(spec):
        plain = [k for k in spec if k not in dollar]
        raise MatcherSpecError(
            f"mixes $-operators ({', '.join(dollar)}) with plain keys ({', '.join(map(str, plain))}); "
            "wrap a literal dict in $eq",
            where,
        )
    if dollar:
        return _compile_operators(spec, where, options)
    children = {
        str(key): _compile(value, (*where, str(key)), options) for key, value in spec.items()
    }
    return DictOf(children, allow_extra=options.lenient, noun=noun)


def _compile_operators(spec: dict[str, Any], where: Where, options: _Options) -> Matcher:
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
    if spec.get("$coerce", False):
        options = replace(options, coerce=True)
    parts = [
        _COMPILERS[name](_Operator(name, spec, where, options))
        for name in spec
        if name in _COMPILERS
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
