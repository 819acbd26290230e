"""``$custom: "module:function"``: a matcher that is a function of the user's own code."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

from judgekit._util.references import UnresolvedReference, resolve_reference, split_reference
from judgekit.errors import ConfigError
from judgekit.formats.matchers.base import Matcher, MatcherSpecError, Mismatch
from judgekit.formats.matchers.rendering import Where, render_value


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


def custom_matcher(reference: str, *, where: Where, here: Where, resolve_code: bool) -> Custom:
    """The matcher of ``$custom: reference``; ``resolve_code=False`` checks the reference's
    form and imports nothing. ``where`` is the spec's path, ``here`` the operator's."""
    if not resolve_code:
        try:
            split_reference(reference, what="$custom")
        except UnresolvedReference as exc:
            raise MatcherSpecError(str(exc), where) from None
        return Custom(reference, None)
    return Custom(reference, _import_custom(reference, where, here))


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
