"""Reading YAML within bounds: composing the node graph, checking it, then constructing.

A YAML file of a few hundred bytes can describe billions of values through nested aliases
(``b: &b [*a, *a, …]``), nest deeply enough to exhaust the stack, or say a key twice, in
which case a plain loader keeps the last value and drops the first without a word. So
judgekit composes the node graph from the parser's events itself, without recursion, and
refuses while composing:

- lists and mappings nested more than :data:`MAX_DEPTH` levels;
- more than :data:`MAX_ALIASES` aliases (``*name``);
- aliases that repeat more than :data:`MAX_ALIAS_VALUES` values in all, counted from the
  size of each anchored node, so a bomb is refused before anything is expanded;
- an alias to a list or mapping that contains it (a cycle);
- a key said twice in one mapping (``duplicate key 'order' (first at line 9)``);
- a scalar its tag cannot read: an integer longer than Python converts (4300 digits by
  default), ``!!bool maybe``, an unknown tag.

Only then are Python objects constructed (PyYAML's safe constructor). Each refusal names
the file, line and field; time and memory stay proportional to the file's size; dates stay
strings (``2024-05-20``), as agents pass them to tools."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError

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
_MERGE = _TAG + "merge"


class PlainLoader(yaml.SafeLoader):
    """The safe loader without the timestamp resolver: dates stay strings. The pure-Python
    parser: its syntax errors say what was expected and what was found, the same wherever
    judgekit is installed (libyaml's parser reads faster; see yamlfile.load_yaml)."""


PlainLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _TAG + "timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class LineNode:
    """The lines of a list's items or a mapping's keys, and the same of what they hold.

    Built while composing, one per list or mapping: an alias shares the node of its anchor,
    so this tree is no larger than the file however often aliases repeat it. ``merges`` are
    the mappings a ``<<`` key merges in, searched after the mapping's own keys.
    """

    __slots__ = ("items", "keys", "merges")

    def __init__(self, *, mapping: bool) -> None:
        self.keys: dict[str, tuple[int, LineNode | None]] | None = {} if mapping else None
        self.items: list[tuple[int, LineNode | None]] | None = None if mapping else []
        self.merges: list[LineNode] = []

    def child(self, part: str | int) -> tuple[int, LineNode | None] | None:
        """The line of ``part`` (a key or an index) and what it holds, if it is here."""
        if self.items is not None:
            if isinstance(part, int) and not isinstance(part, bool) and 0 <= part < len(self.items):
                return self.items[part]
            return None
        assert self.keys is not None
        found = self.keys.get(part if isinstance(part, str) else str(part))
        if found is not None:
            return found
        for merged in self.merges:
            found = merged.child(part)
            if found is not None:
                return found
        return None


@dataclass
class _Anchor:
    node: yaml.Node
    lines: LineNode | None
    line: int
    size: int | None  # None while its list or mapping is still open


@dataclass
class _Open:
    """A list or mapping being composed."""

    node: yaml.SequenceNode | yaml.MappingNode
    lines: LineNode
    anchor: str | None
    size: int = 1
    key: yaml.Node | None = None  # a mapping's key waiting for its value
    key_line: int = 0
    seen: dict[Any, int] = field(default_factory=dict)  # a mapping's keys -> their lines


def _render(parts: list[str | int]) -> str | None:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or None


def _key_text(node: yaml.Node) -> str:
    return str(node.value) if isinstance(node, yaml.ScalarNode) else "?"


def _short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix(_TAG) if tag.startswith(_TAG) else tag


def _int_digits(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


class _Composer:
    """Composes one document from the parser's events, checking as it goes. (Events are
    typed Any: PyYAML's stubs give their marks a type its nodes do not take.)"""

    def __init__(self, loader: Any, path: Path) -> None:
        self.loader = loader
        self.path = path
        self.stack: list[_Open] = []
        self.anchors: dict[str, _Anchor] = {}
        self.aliases = 0
        self.alias_values = 0

    def error(self, message: str, line: int, *, field_here: bool = True) -> DataError:
        where = _render(self._location()) if field_here else None
        return DataError(message, path=self.path, line=line, field=where)

    def _location(self) -> list[str | int]:
        parts: list[str | int] = []
        for entry in self.stack:
            if isinstance(entry.node, yaml.SequenceNode):
                parts.append(len(entry.node.value))
            elif entry.key is not None:
                parts.append(_key_text(entry.key))
            else:
                break  # inside a key: the mapping is as near as a field can say
        return parts

    def compose(self) -> tuple[yaml.Node | None, LineNode | None]:
        """The document's root node and its lines; None for an empty stream."""
        loader = self.loader
        loader.get_event()  # stream start
        if loader.check_event(yaml.StreamEndEvent):
            loader.get_event()
            return None, None
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
        return root

    def _document(self) -> tuple[yaml.Node, LineNode | None]:
        while True:
            event = self.loader.get_event()
            line = event.start_mark.line + 1
            if isinstance(event, yaml.AliasEvent):
                node, lines, size = self._alias(event.anchor or "", line)
                done = self._add(node, lines, size, line)
            elif isinstance(event, yaml.ScalarEvent):
                done = self._add(*self._scalar(event, line), 1, line)
            elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
                self._open(event, line)
                continue
            else:  # the end of a list or mapping
                entry = self.stack.pop()
                entry.node.end_mark = event.end_mark
                if entry.anchor is not None:
                    self.anchors[entry.anchor].size = entry.size
                done = self._add(
                    entry.node, entry.lines, entry.size, entry.node.start_mark.line + 1
                )
            if done is not None:
                return done

    def _anchor(self, name: str | None, node: yaml.Node, lines: LineNode | None, line: int) -> None:
        if name is None:
            return
        first = self.anchors.get(name)
        if first is not None:
            raise self.error(f"anchor &{name} is defined twice (first at line {first.line})", line)
        self.anchors[name] = _Anchor(node, lines, line, 1 if lines is None else None)

    def _alias(self, name: str, line: int) -> tuple[yaml.Node, LineNode | None, int]:
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
        return anchor.node, anchor.lines, anchor.size

    def _scalar(self, event: Any, line: int) -> tuple[yaml.Node, None]:
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        node = yaml.ScalarNode(
            tag, event.value, event.start_mark, event.end_mark, style=event.style
        )
        if tag not in (_STR, _NULL, _MERGE):
            self._construct_scalar(node, line)
        self._anchor(event.anchor, node, None, line)
        return node, None

    def _construct_scalar(self, node: yaml.ScalarNode, line: int) -> None:
        """Construct a typed scalar now, so a value its tag cannot read names its field."""
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

    def _open(self, event: Any, line: int) -> None:
        if len(self.stack) >= MAX_DEPTH:
            raise self.error(
                f"nested more than {MAX_DEPTH} levels deep; judgekit reads lists and mappings "
                f"nested at most {MAX_DEPTH} levels",
                line,
                field_here=False,
            )
        mapping = isinstance(event, yaml.MappingStartEvent)
        kind: type[yaml.SequenceNode | yaml.MappingNode] = (
            yaml.MappingNode if mapping else yaml.SequenceNode
        )
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(kind, None, event.implicit)
        node = kind(tag, [], event.start_mark, None, flow_style=event.flow_style)
        lines = LineNode(mapping=mapping)
        self._anchor(event.anchor, node, lines, line)
        self.stack.append(_Open(node, lines, event.anchor))

    def _add(
        self, node: yaml.Node, lines: LineNode | None, size: int, line: int
    ) -> tuple[yaml.Node, LineNode | None] | None:
        """Put a finished node into the open list or mapping; the root when none is open."""
        if not self.stack:
            return node, lines
        parent = self.stack[-1]
        parent.size += size
        if isinstance(parent.node, yaml.SequenceNode):
            parent.node.value.append(node)
            assert parent.lines.items is not None
            parent.lines.items.append((line, lines))
        elif parent.key is None:
            self._check_key(parent, node, line)
            parent.key, parent.key_line = node, line
        else:
            key = parent.key
            parent.node.value.append((key, node))
            parent.key = None
            assert parent.lines.keys is not None
            if key.tag == _MERGE and isinstance(key, yaml.ScalarNode):
                parent.lines.merges.extend(_merged(lines))
            elif isinstance(key, yaml.ScalarNode):
                parent.lines.keys[str(key.value)] = (parent.key_line, lines)
        return None

    def _check_key(self, parent: _Open, key: yaml.Node, line: int) -> None:
        if not isinstance(key, yaml.ScalarNode) or key.tag == _MERGE:
            return  # a list or mapping as a key: the constructor refuses it (unhashable)
        identity = key.value if key.tag == _STR else self.loader.construct_object(key)
        try:
            first = parent.seen.get(identity)
        except TypeError:
            return
        if first is not None:
            parent.key = key  # so the field names the repeated key
            raise self.error(f"duplicate key {key.value!r} (first at line {first})", line)
        parent.seen[identity] = line


def _merged(lines: LineNode | None) -> list[LineNode]:
    """The mappings a ``<<`` value merges in: one mapping, or a list of them."""
    if lines is None:
        return []
    if lines.keys is not None:
        return [lines]
    assert lines.items is not None
    return [item for _, item in lines.items if item is not None and item.keys is not None]


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
        composer = _Composer(loader, path)
        root, lines = composer.compose()
        if root is None:
            return None, None, None
        with map_exceptions(DOCUMENT_ERRORS, (path, root.start_mark.line + 1)):
            data = loader.construct_document(root)
        return data, lines, root.start_mark.line + 1
    finally:
        loader.dispose()
