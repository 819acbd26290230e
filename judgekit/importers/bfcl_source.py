"""Java and JavaScript scalar arguments as the source text BFCL's converters accept.

A Java or JavaScript model writes every argument as source code, and BFCL converts the text
by the doc type before comparing (``java_type_converter.py``, ``js_type_converter.py`` in
ShishirPatil/gorilla). Text the converter does not recognise stays a string and never equals
a typed answer, so each typed acceptable value becomes the exact spellings BFCL reads as it:

- booleans: only ``true`` / ``false`` (``True``, ``TRUE``, ``1`` are refused);
- a Java ``long`` needs its ``L`` (``42L``), a Java ``float`` its ``f`` (``2.5f``), a
  JavaScript ``Bigint`` its ``n`` (``42n``); these are spelled out as a regex, since
  ``$coerce`` reads plain numbers only;
- other numbers: a plain decimal (integers without a point; JavaScript floats without an
  exponent), compared by value with ``$coerce``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

__all__ = ["SCALAR_SOURCE_TYPES", "source_value_spec"]

# The converters' patterns for numbers written without a type suffix.
_INTEGER = r"^-?\d+$"
_PLAIN_SYNTAX = {
    ("java", "byte"): _INTEGER,
    ("java", "short"): _INTEGER,
    ("java", "integer"): _INTEGER,
    ("java", "double"): r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$",
    ("javascript", "integer"): _INTEGER,
    ("javascript", "float"): r"^-?\d+(\.\d+)?$",
}
# Types whose number must carry a suffix: (suffix class, whether a fraction is allowed).
_SUFFIXED = {
    ("java", "long"): ("[lL]", False),
    ("java", "float"): ("[fF]", True),
    ("javascript", "Bigint"): ("n", False),
}
_BOOLEAN_TYPES = {("java", "boolean"), ("javascript", "Boolean")}

SCALAR_SOURCE_TYPES = {doc_type for _, doc_type in [*_PLAIN_SYNTAX, *_SUFFIXED, *_BOOLEAN_TYPES]}


def source_value_spec(value: Any, doc_type: str, language: str) -> Any:
    """The matcher for one typed acceptable value of a scalar Java/JavaScript argument.

    A string answer is a variable name (BFCL compares it exactly); a value of a type no
    rule above covers is left as it is, and never equals source text.
    """
    key = (language, doc_type)
    if isinstance(value, bool):
        return ("true" if value else "false") if key in _BOOLEAN_TYPES else value
    if not isinstance(value, int | float):
        return value
    if key in _SUFFIXED:
        suffix, fraction = _SUFFIXED[key]
        return {"$regex": _number_regex(value, suffix, fraction=fraction)}
    if key in _PLAIN_SYNTAX:
        return {"$eq": value, "$coerce": True, "$regex": _PLAIN_SYNTAX[key]}
    return value


def _number_regex(value: int | float, suffix: str, *, fraction: bool) -> str:
    """The spellings ``[-]digits[.digits]<suffix>`` whose value is ``value``.

    >>> _number_regex(42, "[lL]", fraction=False), _number_regex(-2.5, "[fF]", fraction=True)
    ('^0*42[lL]$', '^-0*2\\\\.50*[fF]$')
    """
    exact = Decimal(str(value))
    if not fraction and exact != exact.to_integral_value():
        return "(?!)"  # a whole-number type never spells a fraction
    sign, digits, exponent = exact.normalize().as_tuple()
    assert isinstance(exponent, int)  # finite: the value came from JSON
    text = "".join(map(str, digits))
    if exponent >= 0:
        whole, decimals = text + "0" * exponent, ""
    else:
        padded = text.rjust(-exponent + 1, "0")
        whole, decimals = padded[:exponent], padded[exponent:]
    tail = ""
    if fraction:
        tail = rf"\.{decimals}0*" if decimals else r"(\.0+)?"
    if exact == 0:
        return f"^-?0+{tail}{suffix}$"
    sign_text = "-" if sign else ""
    whole = whole.lstrip("0") or "0"
    return f"^{sign_text}0*{whole}{tail}{suffix}$"
