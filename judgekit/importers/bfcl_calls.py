"""BFCL's prompt-mode results: calls written as text, decoded as BFCL decodes them.

A model without native function calling answers BFCL with text such as
``[get_weather(city='Paris'), get_time(zone="CET")]``. BFCL reads it with
``default_decode_ast_prompting`` (``model_handler/utils.py`` in ShishirPatil/gorilla): strip
backticks, new lines and spaces from both ends, add a missing ``[`` or ``]``, then

- Python categories: parse as a Python expression (``ast``, never evaluated) that is one call
  or a list of calls; each call's dotted name and its keyword arguments (positional
  arguments are ignored, as BFCL ignores them); values are constants, ``-`` numbers, lists,
  tuples (as lists), dicts, bare names (as their text), calls with keywords (as a nested
  ``{name: arguments}``), calls without (as their source text), subscripts (as their text)
  and arithmetic on number literals (``+ - * / // % **``, computed here without ``eval``);
- Java and JavaScript categories: drop the outer brackets and read one
  ``name(arg=value, ...)`` call; each value stays source text, a string literal without
  its quotes, as BFCL's tree-sitter readers return it (BFCL's converters then read the
  text by the doc type, see :mod:`judgekit.importers.bfcl_source`). As there, several
  calls decode as none, and a ``[...]`` or ``{...}`` value is not Java. Not reproduced:
  BFCL's Java reader writes a compound value such as ``1 + 2`` without its spaces
  (``1+2``; kept as written here), and tree-sitter's error recovery refuses some
  unqualified one-argument calls (``f(a=1)``; decoded here).

Text that does not decode raises :class:`CallTextError` saying why.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from typing import Any

__all__ = ["CallTextError", "decode_call_text"]

Calls = list[tuple[str, dict[str, Any]]]


class CallTextError(ValueError):
    """The text is not calls in the form BFCL decodes."""


def decode_call_text(text: str, language: str) -> Calls:
    """The calls in a prompt-mode result, as ``(name, arguments)`` in order."""
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    if language == "python":
        return _python_calls(text.strip().strip("'"))
    return _source_calls(text[1:-1], language)


# ---------------------------------------------------------------- Python call syntax


def _python_calls(text: str) -> Calls:
    try:
        body = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise CallTextError(f"not Python call syntax ({exc.msg})") from None
    except ValueError as exc:  # a NUL character
        raise CallTextError(f"not Python call syntax ({exc})") from None
    if isinstance(body, ast.Call):
        return [_python_call(body)]
    elements = getattr(body, "elts", None)
    if not isinstance(body, ast.List | ast.Tuple | ast.Set) or elements is None:
        raise CallTextError(f"a {type(body).__name__} expression, not a list of calls")
    calls = []
    for element in elements:
        if not isinstance(element, ast.Call):
            raise CallTextError(f"a {type(element).__name__} in the list, not a call")
        calls.append(_python_call(element))
    return calls


def _python_call(call: ast.Call) -> tuple[str, dict[str, Any]]:
    parts = []
    node: ast.expr = call.func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    arguments = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise CallTextError("a **mapping argument, not a named one")
        arguments[keyword.arg] = _python_value(keyword.value)
    return ".".join(reversed(parts)), arguments


def _python_value(node: ast.expr) -> Any:  # long: one branch per kind of expression BFCL reads
    if isinstance(node, ast.Constant):
        return _constant(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _python_value(node.operand)
        if not _is_number(value):
            raise CallTextError(f"a sign before {ast.unparse(node.operand)!r}, not a number")
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.List | ast.Tuple):
        return [_python_value(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {_dict_key(k): _python_value(v) for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.BinOp):
        return _arithmetic(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        if not node.keywords:
            return ast.unparse(node)
        name, arguments = _python_call(node)
        return {name: arguments}
    if isinstance(node, ast.Subscript):
        return ast.unparse(node)
    raise CallTextError(f"a {type(node).__name__} value ({ast.unparse(node)!r})")


def _constant(value: Any) -> Any:
    if value is Ellipsis:
        return "..."
    if isinstance(value, float) and not math.isfinite(value):
        raise CallTextError(f"the number {value!r} has no JSON form")
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise CallTextError(f"a {type(value).__name__} constant, which JSON cannot hold")


def _dict_key(node: ast.expr | None) -> str:
    if node is None:
        raise CallTextError("a **mapping inside a dict")
    key = _python_value(node)
    if not isinstance(key, str | int | float | bool) or key is None:
        raise CallTextError(f"a dict key {ast.unparse(node)!r} that is not a string or number")
    return key if isinstance(key, str) else str(key)


_OPERATORS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_LARGEST_EXPONENT = 1024  # keeps 10**exponent small enough to hold and print


def _arithmetic(node: ast.BinOp) -> int | float:
    """Arithmetic on number literals, as BFCL's ``eval`` of it gives."""
    left, right = _python_value(node.left), _python_value(node.right)
    apply = _OPERATORS.get(type(node.op))
    if apply is None or not (_is_number(left) and _is_number(right)):
        raise CallTextError(f"arithmetic other than on numbers ({ast.unparse(node)!r})")
    if isinstance(node.op, ast.Pow) and abs(right) > _LARGEST_EXPONENT:
        raise CallTextError(f"an exponent too large to compute ({ast.unparse(node)!r})")
    try:
        result: int | float = apply(left, right)
    except (ZeroDivisionError, OverflowError) as exc:
        raise CallTextError(f"{ast.unparse(node)!r} cannot be computed ({exc})") from None
    if not _is_number(result) or (isinstance(result, float) and not math.isfinite(result)):
        raise CallTextError(f"{ast.unparse(node)!r} is not a finite real number")
    return result


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# ---------------------------------------------------------------- Java / JavaScript calls

_CALL_NAME = re.compile(r"\s*([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)\s*\(")
_ARGUMENT_NAME = re.compile(r"\s*([A-Za-z_$][\w$]*)\s*=(?!=)")
_CLOSING = {"(": ")", "[": "]", "{": "}"}


def _source_calls(text: str, language: str) -> Calls:
    """``name(a=value, ...)`` calls separated by commas; values kept as source text."""
    calls: Calls = []
    position = 0
    while True:
        match = _CALL_NAME.match(text, position)
        if match is None:
            raise CallTextError(f"not a {_LANGUAGE_NAMES[language]} call at column {position + 1}")
        end = _matching_close(text, match.end() - 1)
        name = re.sub(r"\s+", "", match.group(1))
        calls.append((name, _source_arguments(text[match.end() : end], language)))
        rest = text[end + 1 :].lstrip()
        if not rest:
            break
        if not rest.startswith(","):
            raise CallTextError(f"text after the call: {rest[:40]!r}")
        position = len(text) - len(rest) + 1
    if len(calls) > 1:
        # BFCL's readers find no call in a comma-separated sequence of calls.
        raise CallTextError(
            f"{len(calls)} calls; BFCL reads one {_LANGUAGE_NAMES[language]} call per result"
        )
    return calls


_LANGUAGE_NAMES = {"java": "Java", "javascript": "JavaScript"}


def _source_arguments(text: str, language: str) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    for piece in _split_top_level(text):
        if not piece.strip():
            continue
        match = _ARGUMENT_NAME.match(piece)
        if match is None:
            raise CallTextError(f"an argument without a name: {piece.strip()[:40]!r}")
        name, value = match.group(1), piece[match.end() :].strip()
        if name in arguments:
            raise CallTextError(f"the argument {name!r} is given twice")
        if not value:
            raise CallTextError(f"the argument {name!r} has no value")
        if language == "java" and value[0] in "[{":
            raise CallTextError(f"the argument {name!r} is a list or dict literal, not Java")
        arguments[name] = _unquoted(value, language)
    return arguments


def _unquoted(value: str, language: str) -> str:
    """A string literal's text without its quotes; any other value as written.

    BFCL's JavaScript reader drops the first and last character of any value that starts
    and ends with the same quote; its Java reader only those of a single literal.
    """
    if len(value) < 2 or value[0] != value[-1] or value[0] not in "\"'":
        return value
    if language == "javascript" or _string_end(value, 0) == len(value) - 1:
        return value[1:-1]
    return value


def _split_top_level(text: str) -> list[str]:
    """``text`` cut at the commas outside brackets and string literals."""
    pieces, start, position, depth = [], 0, 0, 0
    while position < len(text):
        char = text[position]
        if char in "\"'`":
            position = _string_end(text, position)
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            pieces.append(text[start:position])
            start = position + 1
        position += 1
    pieces.append(text[start:])
    return pieces


def _matching_close(text: str, opening: int) -> int:
    """The index of the bracket closing the one at ``opening``."""
    stack = [_CLOSING[text[opening]]]
    position = opening + 1
    while position < len(text):
        char = text[position]
        if char in "\"'`":
            position = _string_end(text, position)
        elif char in _CLOSING:
            stack.append(_CLOSING[char])
        elif char in ")]}":
            if char != stack.pop():
                raise CallTextError(f"a {char!r} that closes nothing at column {position + 1}")
            if not stack:
                return position
        position += 1
    raise CallTextError("a call whose brackets are not closed")


def _string_end(text: str, start: int) -> int:
    """The index of the quote closing the string literal that opens at ``start``."""
    quote, position = text[start], start + 1
    while position < len(text):
        if text[position] == "\\":
            position += 2
            continue
        if text[position] == quote:
            return position
        position += 1
    raise CallTextError(f"a string literal that is not closed (column {start + 1})")
