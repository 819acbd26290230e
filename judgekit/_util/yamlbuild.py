"""Reading plain YAML fast: Python values built straight from libyaml's events.

:func:`judgekit._util.yamlcompose.read_yaml` composes a node for every value, checks the
graph, then has PyYAML's constructor walk it again: three passes, half a million Python
objects for a suite of 20,000 tasks. Most files judgekit reads use none of what needs that
care (``<<`` merges, explicit tags), so :func:`read_plain_yaml` builds the lists, mappings
and scalars in one pass over libyaml's events, anchors and aliases included (an alias is
its anchor's very value, within the composer's bounds), with the same line of every key and
item (:class:`~judgekit._util.yamlcompose.LineNode`) when asked for them.

It never words an error. Whatever it does not read exactly as the composer would — a merge
key, a tag, a key said twice, an anchor defined twice, an alias to no anchor or to the
list it is in, aliases beyond the bounds, nesting past
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
    AliasEvent,
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


class _Lines:
    """The lines of a list or mapping being built: its own, and its items' or keys'."""

    __slots__ = ("key_line", "key_text", "line", "node")

    def __init__(self, mapping: bool, line: int) -> None:
        self.node = LineNode(mapping=mapping)
        self.line = line
        self.key_line = 0
        self.key_text: Any = ""  # the waiting key's text (a scalar's, never None here)


_IN_LIST = object()  # what an open list has in place of a waiting key
_NO_KEY = object()  # a mapping waiting for its next key


def read_plain_yaml(text: str, *, lines: bool = True) -> tuple[Any, LineNode | None, int | None]:
    """What :func:`~judgekit._util.yamlcompose.read_yaml` returns for ``text`` (its data,
    the lines of its lists and mappings, the document's first line), read with libyaml's
    parser; raises :class:`NotPlainYaml` for what the module doc lists. ``lines=False``
    leaves the lines out (None, None): a third faster, for a caller that needs them only to
    word an error and can read them again then."""
    parser = CParser(text)
    try:
        parser.get_event()  # stream start
        event = parser.get_event()
        if type(event) is StreamEndEvent:
            return None, None, None
        root = _document(parser, _Scalars(), yamlcompose.MAX_DEPTH, lines)
        if type(parser.get_event()) is not DocumentEndEvent:
            raise NotPlainYaml("no document end")
        if type(parser.get_event()) is not StreamEndEvent:
            raise NotPlainYaml("a second document")
        return root
    finally:
        parser.dispose()


class _Anchors:
    """Anchors defined so far and aliases used, within the composer's bounds
    (:data:`~judgekit._util.yamlcompose.MAX_ALIASES`,
    :data:`~judgekit._util.yamlcompose.MAX_ALIAS_VALUES`): an alias gives the very value
    of its anchor, as PyYAML's constructor does, and its lines."""

    def __init__(self) -> None:
        # name -> (value, values counted as the composer counts them, lines, a scalar's
        # text or None for a list or mapping); None while its list or mapping is open.
        self.defined: dict[str, tuple[Any, int, LineNode | None, str | None] | None] = {}
        self.aliases = 0
        self.repeated = 0

    def open(self, name: str) -> None:
        if name in self.defined:
            raise NotPlainYaml("an anchor defined twice")
        self.defined[name] = None

    def close(
        self, name: str, value: Any, size: int, lines: LineNode | None, text: str | None
    ) -> None:
        self.defined[name] = (value, size, lines, text)

    def alias(self, name: str) -> tuple[Any, int, LineNode | None, str | None]:
        self.aliases += 1
        found = self.defined.get(name)
        if found is None or self.aliases > yamlcompose.MAX_ALIASES:
            raise NotPlainYaml("an alias to no anchor, to an open one, or one too many")
        self.repeated += found[1]
        if self.repeated > yamlcompose.MAX_ALIAS_VALUES:
            raise NotPlainYaml("aliases repeating too many values")
        return found


def _document(
    parser: Any, scalars: _Scalars, max_depth: int, track: bool
) -> tuple[Any, LineNode | None, int | None]:
    # long: one flat loop, run once per event (half a million for a large suite)
    get_event = parser.get_event
    plain = scalars.value
    anchors = _Anchors()
    values: list[Any] = []  # the open lists and mappings, innermost last
    keys: list[Any] = []  # for each: _IN_LIST, _NO_KEY or the key waiting for its value
    sizes: list[int] = []  # for each, the values in it so far, as the composer counts them
    names: list[str | None] = []  # for each, its anchor
    opened: list[_Lines] = []  # for each, when tracking lines
    child: LineNode | None = None  # the lines of the value just read, when tracking
    line = 0
    text: str | None = None  # a scalar's text, as written; None for a list or mapping
    while True:
        event = get_event()
        kind = type(event)
        if kind is ScalarEvent:
            if event.tag is not None:
                raise NotPlainYaml("a tag")
            text = event.value
            value = plain(text) if event.implicit[0] else text
            size, closed = 1, False
            if track:
                child, line = None, event.start_mark.line + 1
            if event.anchor is not None:
                anchors.open(event.anchor)
                anchors.close(event.anchor, value, 1, None, text)
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if event.tag is not None:
                raise NotPlainYaml("a tag")
            if len(values) >= max_depth:
                raise NotPlainYaml("nested too deep")
            mapping = kind is MappingStartEvent
            values.append({} if mapping else [])
            keys.append(_NO_KEY if mapping else _IN_LIST)
            sizes.append(1)
            names.append(event.anchor)
            if event.anchor is not None:
                anchors.open(event.anchor)
            if track:
                opened.append(_Lines(mapping, event.start_mark.line + 1))
            continue
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            value = values.pop()
            keys.pop()
            size, closed = sizes.pop(), True
            if track:
                entry = opened.pop()
                child, line = entry.node, entry.line
            name = names.pop()
            if name is not None:
                anchors.close(name, value, size, child, None)
        elif kind is AliasEvent:
            value, size, child, text = anchors.alias(event.anchor)
            closed = text is None
            if track:
                line = event.start_mark.line + 1
        else:  # what the parser would not give inside a document
            raise NotPlainYaml(kind.__name__)
        if not values:
            return (value, child, line) if track else (value, None, None)
        sizes[-1] += size
        key = keys[-1]
        if key is _IN_LIST:
            values[-1].append(value)
            if track:
                opened[-1].node.items.append((line, child))  # type: ignore[union-attr]
        elif key is _NO_KEY:
            if closed:  # a list or mapping as a key
                raise NotPlainYaml("a collection as a key")
            try:
                repeated = value in values[-1]
            except TypeError:
                raise NotPlainYaml("an unhashable key") from None
            if repeated:
                raise NotPlainYaml("a key said twice")
            keys[-1] = value
            if track:
                opened[-1].key_line, opened[-1].key_text = line, text
        else:
            values[-1][key] = value
            keys[-1] = _NO_KEY
            if track:
                parent = opened[-1]
                parent.node.keys[parent.key_text] = (parent.key_line, child)  # type: ignore[index]
