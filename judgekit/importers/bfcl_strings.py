"""BFCL's string comparison as a judgekit regex.

BFCL's ``standardize_string`` (``ast_checker.py`` in ShishirPatil/gorilla) lower-cases both
sides, turns ``'`` into ``"`` and removes every space and every ``, . / - _ * ^`` before
comparing, so ``"April 1, 2024"`` equals ``"april 1 2024"`` and ``"x^2"`` equals ``"x**2"``.
``$icase`` ignores case and white space only; the regex below says the whole rule: the
answer's remaining characters in order, case-insensitive, with any of the removed characters
anywhere in between.
"""

from __future__ import annotations

import re

__all__ = ["bfcl_text_spec", "standardize"]

# The characters BFCL removes, as a regex class ("^" not first and "-" last are literal).
_DROPPED_CLASS = "[ ,./_*^-]"
_DROPPED_RUN = _DROPPED_CLASS + "*"
_DROPPED_CHARS = re.compile(_DROPPED_CLASS)
_QUOTE = "['\"]"  # BFCL turns ' into " on both sides, so either quote matches either


def standardize(text: str) -> str:
    """BFCL's normal form of a string.

    >>> standardize("April 1, 2024"), standardize("x**2"), standardize("It's")
    ('april12024', 'x2', 'it"s')
    """
    return _DROPPED_CHARS.sub("", text).lower().replace("'", '"')


def bfcl_text_spec(answer: str) -> dict[str, str]:
    """A ``$regex`` accepting exactly the strings whose normal form is ``answer``'s.

    >>> bfcl_text_spec("x^2")
    {'$regex': '(?i)[ ,./_*^-]*x[ ,./_*^-]*2[ ,./_*^-]*'}
    """
    parts = [_QUOTE if char == '"' else re.escape(char) for char in standardize(answer)]
    body = _DROPPED_RUN.join(parts) + _DROPPED_RUN if parts else ""
    return {"$regex": "(?i)" + _DROPPED_RUN + body}
