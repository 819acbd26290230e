"""Reading plain YAML fast: Python values built straight from libyaml's events.

:func:`judgekit._util.yamlcompose.read_yaml` composes a node for every value, checks the
graph, then has PyYAML's constructor walk it again: three passes, half a million Python
objects for a suite of 20,000 tasks. Most files judgekit reads use none of what needs that
care (anchors, aliases, ``<<`` merges, explicit tags), so :func:`read_plain_yaml` builds
the lists, mappings and scalars in one pass over libyaml's events, with the same line of
every key and item (:class:`~judgekit._util.yamlcompose.LineNode`).

It never words an error. Whatever it does not read exactly as the composer would — an
anchor, an alias, a merge key, a tag, a key said twice, nesting past
:data:`~judgekit._util.yamlcompose.MAX_DEPTH`, a scalar its tag cannot read, a second
document — raises :class:`NotPlainYaml`, and the caller reads the file again the careful
way, whose data, lines and errors are then the ones given. A syntax error is libyaml's
own exception, let through.
"""

from __future__ import annotations

import sys
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.events import (
    DocumentEndEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from judgekit._util import yamlcompose
from judgekit._util.yamlcompose import LineNode, PlainLoader

__all__ = ["NotPlainYaml", "read_plain_yaml"]

CParser: Any = getattr(getattr(yaml, "cyaml", None), "CParser", None)
"""libyaml's parser, None where PyYAML is built without it."""

_TAG = "tag:yaml.org,2002:"
_BY_TAG = SafeConstructor.yaml_constructors
# Typed plain scalars read by PyYAML's own functions, so a value reads exactly as it does
# when composed (``0o17``, ``1_000``, ``.inf``, ``Yes``). Any other tag: the careful way.
_TYPED = {_TAG + name: _BY_TAG[_TAG + name] for name in ("null", "bool", "int", "float")}
_STR = _TAG + "str"
_RESOLVERS = {
    first: [*resolvers, *PlainLoader.yaml_implicit_resolvers.get(None, [])]
    for first, resolvers in PlainLoader.yaml_implicit_resolvers.items()
}


class NotPlainYaml(Exception):
    """The file uses something only the careful reader handles (see the module doc)."""


class _Scalars:
    """Plain (unquoted) scalars resolved and constructed as PyYAML's safe loader does; each
    distinct text once, as keys and small values repeat through a file."""

    def __init__(self) -> None:
        self.constructor = SafeConstructor()
        self.known: dict[str, Any] = {}

    def value(self, text: str) -> Any:
        try:
            return self.known[text]
        except KeyError:
            pass
        value = self._construct(text)
        self.known[text] = value
        return value

    def _construct(self, text: str) -> Any:
        tag = _STR
        for candidate, regexp in _RESOLVERS.get(text[:1], ()):
            if regexp.match(text):
                tag = candidate
                break
        if tag == _STR:
            return text
        construct = _TYPED.get(tag)
        if construct is None:  # a merge key, ``=``: the composer's to judge
            raise NotPlainYaml(tag)
        node = yaml.ScalarNode(tag, text)
        try:
            value = construct(self.constructor, node)
        except Exception as exc:  # the composer names the field and what is wrong
            raise NotPlainYaml(tag) from exc
        limit = sys.get_int_max_str_digits()
        if isinstance(value, int) and limit and value.bit_length() > 3 * limit:
            raise NotPlainYaml("an integer longer than Python writes back")
        return value


class _Open:
    """A list or mapping being built, and the lines of its items or keys."""

    __slots__ = ("key", "key_line", "key_text", "line", "lines", "value")

    def __init__(self, value: list[Any] | dict[Any, Any], lines: LineNode, line: int) -> None:
        self.value = value
        self.lines = lines
        self.line = line
        self.key: Any = _NO_KEY
        self.key_line = 0
        self.key_text = ""


_NO_KEY = object()  # a mapping waiting for its next key, not a value


def read_plain_yaml(text: str) -> tuple[Any, LineNode | None, int | None]:
    """What :func:`~judgekit._util.yamlcompose.read_yaml` returns for ``text`` (its data,
    the lines of its lists and mappings, the document's first line), read with libyaml's
    parser; raises :class:`NotPlainYaml` for what the module doc lists."""
    parser = CParser(text)
    try:
        parser.get_event()  # stream start
        event = parser.get_event()
        if type(event) is StreamEndEvent:
            return None, None, None
        root = _document(parser, _Scalars(), yamlcompose.MAX_DEPTH)
        if type(parser.get_event()) is not DocumentEndEvent:
            raise NotPlainYaml("no document end")
        if type(parser.get_event()) is not StreamEndEvent:
            raise NotPlainYaml("a second document")
        return root
    finally:
        parser.dispose()


def _document(parser: Any, scalars: _Scalars, max_depth: int) -> tuple[Any, LineNode | None, int]:
    # One flat loop: it runs once per event, half a million times for a large suite.
    get_event = parser.get_event
    plain = scalars.value
    stack: list[_Open] = []
    while True:
        event = get_event()
        kind = type(event)
        if kind is ScalarEvent:
            if event.anchor is not None or event.tag is not None:
                raise NotPlainYaml("an anchor or a tag")
            value = plain(event.value) if event.implicit[0] else event.value
            line = event.start_mark.line + 1
            lines = None
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if event.anchor is not None or event.tag is not None:
                raise NotPlainYaml("an anchor or a tag")
            if len(stack) >= max_depth:
                raise NotPlainYaml("nested too deep")
            mapping = kind is MappingStartEvent
            stack.append(
                _Open({} if mapping else [], LineNode(mapping=mapping), event.start_mark.line + 1)
            )
            continue
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            done = stack.pop()
            value, lines, line = done.value, done.lines, done.line
        else:  # an alias, or what the parser would not give inside a document
            raise NotPlainYaml(kind.__name__)
        if not stack:
            return value, lines, line
        parent = stack[-1]
        into = parent.value
        if type(into) is list:
            into.append(value)
            parent.lines.items.append((line, lines))  # type: ignore[union-attr]
        elif parent.key is _NO_KEY:
            if lines is not None:  # a list or mapping as a key
                raise NotPlainYaml("a collection as a key")
            try:
                repeated = value in into
            except TypeError:
                raise NotPlainYaml("an unhashable key") from None
            if repeated:
                raise NotPlainYaml("a key said twice")
            parent.key, parent.key_line, parent.key_text = value, line, event.value
        else:
            into[parent.key] = value
            parent.lines.keys[parent.key_text] = (parent.key_line, lines)  # type: ignore[index]
            parent.key = _NO_KEY
