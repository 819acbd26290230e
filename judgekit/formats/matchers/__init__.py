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

The modules: ``base`` (Matcher, Mismatch, the spec error), ``rendering`` (values and paths in
reasons), ``equality`` (the rules above), ``values``, ``strings``, ``containers`` and
``custom`` (the matchers by what they match), ``compiler`` (spec → matchers).
"""

from __future__ import annotations

from judgekit.formats.matchers.base import Matcher, MatcherSpecError, Mismatch
from judgekit.formats.matchers.compiler import OPERATORS, compile_matcher
from judgekit.formats.matchers.containers import DictOf
from judgekit.formats.matchers.equality import values_equal
from judgekit.formats.matchers.rendering import render_path, render_value

__all__ = [
    "OPERATORS",
    "DictOf",
    "Matcher",
    "MatcherSpecError",
    "Mismatch",
    "compile_matcher",
    "render_path",
    "render_value",
    "values_equal",
]
