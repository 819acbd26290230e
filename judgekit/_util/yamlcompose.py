"""Reading YAML within bounds: values built in one pass over the parser's events.

A YAML file of a few hundred bytes can describe billions of values through nested aliases
(``b: &b [*a, *a, …]``), nest deeply enough to exhaust the stack, or say a key twice, in
which case a plain loader keeps the last value and drops the first without a word. So
judgekit builds each value from the parser's events itself, without recursion, and refuses
as it reads:

- lists and mappings nested more than :data:`MAX_DEPTH` levels;
- more than :data:`MAX_ALIASES` aliases (``*name``);
- aliases that repeat more than :data:`MAX_ALIAS_VALUES` values in all, counted from the
  size of each anchored node, so a bomb is refused before anything is expanded;
- an alias to a list or mapping that contains it (a cycle);
- a key said twice in one mapping (``duplicate key 'order' (first at line 9)``);
- a scalar its tag cannot read: an integer longer than Python converts (4300 digits by
  default), ``!!bool maybe``, an unknown tag.

Plain lists and mappings are built as they are read; scalars by PyYAML's safe constructor;
merge keys, ``!!set``, ``!!omap`` and other tags on lists and mappings as that constructor
would (:mod:`judgekit._util.yamltags`), with its refusals in its order. Each refusal names
the file, line and field; time and memory stay proportional to the file's size; dates stay
strings (``2024-05-20``), as agents pass them to tools."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError

from judgekit._util.yamlnodes import Anchor, LineNode, OpenNode
from judgekit._util.yamltags import (
    MAP,
    MERGE,
    SEQ,
    Built,
    first_fault,
    merge_scalar,
    value_of,
)
from judgekit.errors import DataError, ErrorTable, map_exceptions

__all__ = [
    "MAX_ALIASES",
    "MAX_ALIAS_VALUES",
    "MAX_DEPTH",
    "LineNode",
    "PlainLoader",
    "read_yaml",
]

MAX_DEPTH = 100
"""Lists and mappings nested deeper than this are refused. Suites and rubrics nest a few
levels; a bound keeps every recursive reader downstream (validation, matchers) safe."""

MAX_ALIASES = 1_000
"""Aliases (``*name``) a file may use."""

MAX_ALIAS_VALUES = 100_000
"""Values (scalars, lists and mappings) aliases may repeat in all, counted as if expanded."""

_TAG = "tag:yaml.org,2002:"
_STR = _TAG + "str"
_NULL = _TAG + "null"
_INT = _TAG + "int"
_MISSING = object()


class PlainLoader(yaml.SafeLoader):
    """The safe loader without the timestamp resolver: dates stay strings. The pure-Python
    parser: its syntax errors say what was expected and what was found, the same wherever
    judgekit is installed (libyaml's parser reads faster; see yamlfile.load_yaml)."""


PlainLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _TAG + "timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _render(parts: list[str | int]) -> str | None:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or None


def _short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix(_TAG) if tag.startswith(_TAG) else tag


def _int_digits(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


_ScalarEvent, _AliasEvent = yaml.ScalarEvent, yaml.AliasEvent
_SequenceStart, _MappingStart = yaml.SequenceStartEvent, yaml.MappingStartEvent
_UNSHARED = frozenset(_TAG + name for name in ("map", "seq", "set", "omap", "pairs"))
"""Tags that construct a scalar as an empty list, mapping or set (and refuse it later)."""


class _Composer:
    """Builds one document's value from the parser's events in one pass, checking as it goes.
    (Events are typed Any: PyYAML's stubs give their marks a type its nodes do not take.)"""

    def __init__(self, loader: Any, path: Path) -> None:
        self.loader = loader
        self.path = path
        self.stack: list[OpenNode] = []
        self.anchors: dict[str, Anchor] = {}
        self.aliases = 0
        self.alias_values = 0
        self.events = 0  # each node's place in the document, for yamltags' order
        self.tags: dict[tuple[str, Any], str] = {}  # a scalar's text -> its resolved tag
        self.typed: dict[tuple[str, str], Any] = {}  # (tag, text) -> its constructed value

    def error(self, message: str, line: int, *, field_here: bool = True) -> DataError:
        where = _render(self._location()) if field_here else None
        return DataError(message, path=self.path, line=line, field=where)

    def _location(self) -> list[str | int]:
        parts: list[str | int] = []
        for entry in self.stack:
            if not entry.mapping:
                parts.append(len(entry.value))
            elif entry.has_key:
                parts.append("?" if entry.key_text is None else entry.key_text)
            else:
                break  # inside a key: the mapping is as near as a field can say
        return parts

    def compose(self) -> tuple[Any, LineNode | None, int | None]:
        """The document's value, its lines and its first line; None for an empty stream."""
        loader = self.loader
        loader.get_event()  # stream start
        if loader.check_event(yaml.StreamEndEvent):
            loader.get_event()
            return None, None, None
        loader.get_event()  # document start
        root = self._document()
        loader.get_event()  # document end
        if not loader.check_event(yaml.StreamEndEvent):
            event = loader.get_event()
            raise DataError(
                "a second YAML document starts here; judgekit reads one document per file",
                path=self.path,
                line=event.start_mark.line + 1,
            )
        self._construct(root[0], root[2])
        return value_of(root[0]), root[1], root[2]

    def _construct(self, root: Any, root_line: int) -> None:
        """Refuse what PyYAML's constructor would, in its order: the root's own tag, then a
        scalar tagged as a list or mapping, then the first refusal breadth first."""
        if isinstance(root, Built) and root.fault is not None:
            raise DataError(root.fault[0], path=self.path, line=root.fault[1])
        loader = self.loader
        with map_exceptions(DOCUMENT_ERRORS, (self.path, root_line)):
            while loader.state_generators:  # as BaseConstructor.construct_document runs them
                generators, loader.state_generators = loader.state_generators, []
                for generator in generators:
                    for _ in generator:
                        pass
        fault = first_fault(root)
        if fault is not None:
            raise DataError(fault[0], path=self.path, line=fault[1])

    def _document(self) -> tuple[Any, LineNode | None, int]:
        get_event = self.loader.get_event
        stack = self.stack
        while True:
            event = get_event()
            self.events += 1
            kind = type(event)
            line = event.start_mark.line + 1
            if kind is _ScalarEvent:
                text = event.value
                x, tag = self._scalar(event, text, line)
                done = self._add(x, None, 1, line, line, tag, False, text)
            elif kind is _MappingStart or kind is _SequenceStart:
                self._open(event, kind is _MappingStart, line)
                continue
            elif kind is _AliasEvent:
                anchor = self._alias(event.anchor or "", line)
                size = anchor.size or 1
                done = self._add(
                    anchor.value,
                    anchor.lines,
                    size,
                    line,
                    anchor.line,
                    anchor.tag,
                    True,
                    anchor.text,
                )
            else:  # the end of a list or mapping
                entry = stack.pop()
                x = entry.finish()
                if entry.anchor is not None:
                    named = self.anchors[entry.anchor]
                    named.value, named.size = x, entry.size
                done = self._add(
                    x, entry.lines, entry.size, entry.line, entry.line, entry.tag, False, None
                )
            if done is not None:
                return done

    def _anchor(self, name: str, anchor: Anchor) -> None:
        first = self.anchors.get(name)
        if first is not None:
            raise self.error(
                f"anchor &{name} is defined twice (first at line {first.line})", anchor.line
            )
        self.anchors[name] = anchor

    def _alias(self, name: str, line: int) -> Anchor:
        self.aliases += 1
        if self.aliases > MAX_ALIASES:
            raise self.error(
                f"more than {MAX_ALIASES} aliases; judgekit reads at most {MAX_ALIASES} in a file",
                line,
            )
        anchor = self.anchors.get(name)
        if anchor is None:
            raise self.error(f"alias *{name} names no anchor (&{name}) defined before it", line)
        if anchor.size is None:
            raise self.error(
                f"alias *{name} is inside the list or mapping it names; judgekit reads no "
                "recursive YAML",
                line,
            )
        self.alias_values += anchor.size
        if self.alias_values > MAX_ALIAS_VALUES:
            raise self.error(
                f"aliases repeat more than {MAX_ALIAS_VALUES} values (here *{name}, "
                f"{anchor.size} of them); judgekit reads at most {MAX_ALIAS_VALUES} in a file",
                line,
            )
        return anchor

    def _scalar(self, event: Any, text: str, line: int) -> tuple[Any, str]:
        """A scalar's value and tag; a typed one is constructed now, so that a value its tag
        cannot read names its field."""
        tag = event.tag
        if tag is None or tag == "!":
            key = (text, event.implicit)
            tag = self.tags.get(key)
            if tag is None:
                tag = self.tags[key] = self.loader.resolve(yaml.ScalarNode, text, event.implicit)
        if tag == _STR:
            x: Any = text
        elif tag == _NULL:
            x = None
        elif tag == MERGE:
            x = merge_scalar(line, self.events)
        else:
            x = self.typed.get((tag, text), _MISSING)
            if x is _MISSING:
                x = self._construct_scalar(tag, event, line)
        if event.anchor is not None:
            anchor = Anchor(None, line, tag, text)
            anchor.value = x
            self._anchor(event.anchor, anchor)
        return x, tag

    def _construct_scalar(self, tag: str, event: Any, line: int) -> Any:
        node = yaml.ScalarNode(
            tag, event.value, event.start_mark, event.end_mark, style=event.style
        )
        with map_exceptions(SCALAR_ERRORS, (self, node, line)):
            value = self.loader.construct_object(node)
        limit = sys.get_int_max_str_digits()  # 0: no limit
        if isinstance(value, int) and limit and value.bit_length() > 3 * limit:
            # Hexadecimal, octal and binary convert at any length, but such a number could
            # not be written back in decimal (in a reason, a results file).
            try:
                str(value)
            except ValueError:
                raise self.error(_long_int(limit), line) from None
        if tag not in _UNSHARED:  # those leave PyYAML a refusal to raise (see _construct)
            self.typed[(tag, event.value)] = value
        return value

    def _open(self, event: Any, mapping: bool, line: int) -> None:
        stack = self.stack
        if len(stack) >= MAX_DEPTH:
            raise self.error(
                f"nested more than {MAX_DEPTH} levels deep; judgekit reads lists and mappings "
                f"nested at most {MAX_DEPTH} levels",
                line,
                field_here=False,
            )
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(
                yaml.MappingNode if mapping else yaml.SequenceNode, None, event.implicit
            )
        entry = OpenNode(mapping, tag, line, self.events, len(stack))
        if stack:
            parent = stack[-1]
            if parent.merging or (parent.mapping and parent.has_key and parent.key_merge):
                entry.merging, entry.flat_at = not mapping, parent.flat_at
        if tag != (MAP if mapping else SEQ) or (not mapping and (entry.merging or event.anchor)):
            entry.raw = []
        if event.anchor is not None:
            self._anchor(event.anchor, Anchor(entry.lines, line, tag, None))
            entry.anchor = event.anchor
        stack.append(entry)

    def _add(
        self,
        x: Any,
        lines: LineNode | None,
        size: int,
        line: int,
        node_line: int,
        tag: str,
        alias: bool,
        text: str | None,
    ) -> tuple[Any, LineNode | None, int] | None:
        """Put a finished value into the open list or mapping; the root when none is open.
        ``line`` is where it is written, ``node_line`` where its node is (an alias's
        anchor), ``text`` a scalar's text (None for a list or mapping)."""
        if not self.stack:
            return x, lines, line
        parent = self.stack[-1]
        parent.size += size
        if not parent.mapping:
            parent.add_item(x, lines, line, node_line, alias)
        elif parent.has_key:
            parent.add_value(x, lines, node_line)
        else:
            first = parent.add_key(x, text, tag, line, node_line)
            if first is not None:
                raise self.error(f"duplicate key {text!r} (first at line {first})", line)
        return None


# What PyYAML's constructors raise for a value they cannot read.
_CONSTRUCTOR_FAILURES = (ValueError, TypeError, KeyError, AttributeError, OverflowError)
_Scalar = tuple[_Composer, yaml.ScalarNode, int]  # its composer (naming its field), node, line


def _long_int(limit: int) -> str:
    return f"an integer of more than {limit} digits; judgekit reads integers of at most {limit}"


def _unreadable_scalar(exc: Exception, at: _Scalar) -> DataError:
    composer, node, line = at
    limit = sys.get_int_max_str_digits()  # 0: no limit
    if node.tag == _INT and limit and _int_digits(node.value) > limit:
        return composer.error(_long_int(limit), line)
    return composer.error(f"{node.value!r} is not a valid {_short_tag(node.tag)}", line)


SCALAR_ERRORS: ErrorTable[_Scalar] = {
    ConstructorError: lambda exc, at: at[0].error(exc.problem or "cannot read this value", at[2]),
    **dict.fromkeys(_CONSTRUCTOR_FAILURES, _unreadable_scalar),
}
"""A scalar its tag cannot read, named by its field and line."""


def _unconstructed(exc: ConstructorError, at: tuple[Path, int]) -> DataError:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark is not None else None
    return DataError(exc.problem or "cannot read this YAML", path=at[0], line=line)


DOCUMENT_ERRORS: ErrorTable[tuple[Path, int]] = {
    ConstructorError: _unconstructed,
    **dict.fromkeys(
        _CONSTRUCTOR_FAILURES,
        lambda exc, at: DataError(f"cannot read this YAML: {exc}", path=at[0], line=at[1]),
    ),
}
"""A list or mapping its tag cannot read, named by the file and the document's first line."""


def read_yaml(
    text: str, path: Path, *, loader_class: Any = PlainLoader
) -> tuple[Any, LineNode | None, int | None]:
    """The data of one YAML document, the lines of its lists and mappings, and the line
    where the document starts (None for an empty file); read from the events of
    ``loader_class`` (a :class:`PlainLoader` with another parser, libyaml's say).
    Raises :class:`DataError` for what the module docstring lists, and lets PyYAML's
    :class:`yaml.MarkedYAMLError` (a syntax error) through for the caller to word.
    """
    loader = loader_class(text)
    try:
        return _Composer(loader, path).compose()
    finally:
        loader.dispose()
