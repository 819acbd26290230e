"""What the YAML composer (:mod:`judgekit._util.yamlcompose`) keeps as it reads: each list or
mapping still open, each anchor, and the line of every key and item (a :class:`LineNode`
tree, which errors are located by)."""

from __future__ import annotations

from typing import Any

from judgekit._util import yamltags
from judgekit._util.yamltags import MAP, MERGE, Built, RawPair, Step

__all__ = ["Anchor", "LineNode", "OpenNode", "merged_lines"]


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


class Anchor:
    """What an anchor names: its value (None while its list or mapping is still open), the
    lines of that value, its line, tag and size in values, and a scalar's text."""

    __slots__ = ("line", "lines", "size", "tag", "text", "value")

    def __init__(self, lines: LineNode | None, line: int, tag: str, text: str | None) -> None:
        self.value: Any = None
        self.lines = lines
        self.line = line
        self.tag = tag
        self.text = text
        self.size: int | None = None if lines is not None else 1


class OpenNode:
    """A list or mapping being composed: its value so far, and what composing it needs.

    A plain one (no tag, ``!!seq`` or ``!!map``, no merge keys, nothing refused in it)
    builds its list or dict as it goes; the rest keep their items as written (``raw``) for
    :mod:`judgekit._util.yamltags` to build when they end."""

    __slots__ = (
        "anchor",
        "bad",
        "depth",
        "flat_at",
        "has_key",
        "key",
        "key_identity",
        "key_line",
        "key_merge",
        "key_node_line",
        "key_text",
        "line",
        "lines",
        "mapping",
        "merging",
        "raw",
        "seen",
        "seq",
        "size",
        "tag",
        "value",
    )

    def __init__(self, mapping: bool, tag: str, line: int, seq: int, depth: int) -> None:
        self.mapping = mapping
        self.tag = tag
        self.line = line
        self.seq = seq
        self.depth = depth
        self.value: Any = {} if mapping else []
        self.lines = LineNode(mapping=mapping)
        self.anchor: str | None = None
        self.size = 1
        self.raw: list[Any] | None = None
        self.bad: list[tuple[Step, Built]] = []
        self.merging = False  # a list that is a ``<<`` value
        self.flat_at = (depth + 1, seq)  # where PyYAML merges this mapping (see yamltags)
        self.has_key = False  # a mapping's key waiting for its value:
        self.key: Any = None
        self.key_text: str | None = None  # its text; None for a list or mapping
        self.key_line = 0  # the line its LineNode entry keeps (an alias's own)
        self.key_node_line = 0  # the line of its node (an alias: its anchor's)
        self.key_merge = False
        self.key_identity: Any = None  # what PyYAML tells merged keys apart by (yamltags)
        self.seen: dict[Any, int] = {}  # a mapping's keys -> their lines

    def add_item(
        self, x: Any, lines: LineNode | None, line: int, node_line: int, alias: bool
    ) -> None:
        """A list's next item (see the composer's ``_add`` for the arguments)."""
        if self.raw is not None:
            self.raw.append((x, node_line, alias))
        elif isinstance(x, Built):
            if x.faulty:
                self.bad.append(((1, len(self.value), 0), x))
            x = x.value
        self.value.append(x)
        assert self.lines.items is not None
        self.lines.items.append((line, lines))

    def add_key(self, x: Any, text: str | None, tag: str, line: int, node_line: int) -> int | None:
        """A mapping's next key; the line where it was said first if it is said twice."""
        self.key_text, self.key_merge = text, tag == MERGE
        self.has_key, self.key = True, x  # a repeated key: so the field names it
        self.key_line, self.key_node_line = line, node_line
        self.key_identity = x if text is None else text
        if text is None or self.key_merge:
            return None  # a list or mapping as a key: yamltags refuses it (unhashable)
        try:
            first = self.seen.get(x)
        except TypeError:
            return None
        if first is None:
            self.seen[x] = line
        return first

    def add_value(self, value: Any, lines: LineNode | None, node_line: int) -> None:
        """The waiting key's value."""
        self._pair(value, node_line)
        self.has_key = False
        assert self.lines.keys is not None
        if self.key_text is None:
            pass  # a list or mapping as a key: no line to look it up by
        elif self.key_merge:
            self.lines.merges.extend(merged_lines(lines))
        else:
            self.lines.keys[self.key_text] = (self.key_line, lines)

    def _pair(self, value: Any, node_line: int) -> None:
        """Into the dict of a plain mapping (its keys all strings), else into the pairs as
        written."""
        key = self.key
        if self.raw is None:
            if key is self.key_text and not self.key_merge and not isinstance(value, Built):
                self.value[key] = value
                return
            self.raw = _as_written(self.value)
        identity = self.key_identity
        self.raw.append((key, self.key_node_line, value, node_line, self.key_merge, identity))

    def finish(self) -> Any:
        """The list's or mapping's value: itself if plain, else a :class:`Built`."""
        if self.mapping:
            if self.raw is None and self.tag == MAP:
                return self.value
            raw = self.raw if self.raw is not None else _as_written(self.value)
            return yamltags.mapping(self.tag, raw, self.line, self.seq, self.flat_at)
        if self.raw is not None:
            return yamltags.sequence(self.tag, self.raw, self.line, self.seq, self.depth)
        if self.bad:
            return yamltags.plain_sequence(self.value, self.bad, self.line, self.seq)
        return self.value


def _as_written(data: dict[str, Any]) -> list[RawPair]:
    return [(key, 0, value, 0, False, key) for key, value in data.items()]


def merged_lines(lines: LineNode | None) -> list[LineNode]:
    """The mappings a ``<<`` value merges in: one mapping, or a list of them."""
    if lines is None:
        return []
    if lines.keys is not None:
        return [lines]
    assert lines.items is not None
    return [item for _, item in lines.items if item is not None and item.keys is not None]
