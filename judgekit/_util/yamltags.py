"""What PyYAML's safe constructor makes of a list or mapping that is not plain.

The composer (:mod:`judgekit._util.yamlcompose`) builds plain lists and mappings itself, in
one pass over the parser's events. The rest is built here, as PyYAML's safe constructor
builds it from a node graph: merge keys (``<<``), ``!!set``, ``!!omap``, ``!!pairs``, a key
that is itself a list or mapping, a tag no constructor reads. Each becomes a
:class:`Built`: its value and what the constructor would refuse in it.

PyYAML constructs breadth first (the contents of a list or mapping one round after it), and
stops at the first refusal; so each refusal is kept with its place in its list's or
mapping's construction, and of several the one PyYAML would meet first is the one judgekit
reports (:func:`first_fault`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Any

_TAG = "tag:yaml.org,2002:"
MAP, SEQ, MERGE = _TAG + "map", _TAG + "seq", _TAG + "merge"
_SET, _OMAP, _PAIRS = _TAG + "set", _TAG + "omap", _TAG + "pairs"
_SCALAR_TAGS = frozenset(
    _TAG + name for name in ("null", "bool", "int", "float", "binary", "timestamp", "str")
)

Fault = tuple[str, int]
"""PyYAML's words for a refusal, and the line of the node they are about."""

Step = tuple[int, ...]
"""Where in a list's or mapping's construction a refusal comes: merges first, then each pair
(key, key's hash, value) or item in order."""

Pair = tuple[Any, int, Any, Any]
"""A mapping's key, the line of the key's node, its value (plain values or Builts), and the
object PyYAML tells merged keys apart by: a scalar key's text, a list or mapping key itself."""

RawPair = tuple[Any, int, Any, int, bool, Any]
"""A pair as written: key, key's line, value, value's line, whether the key is ``<<``, and
the key's identity (as in :data:`Pair`)."""

Item = tuple[Any, int, bool]
"""A list item as written: the item, its node's line (an alias: its anchor's), whether it is
an alias."""


class Built:
    """A list, mapping or scalar as PyYAML would construct it, with its refusals.

    ``fault`` is raised where it is constructed (an unknown tag, say); ``body`` holds what
    its own construction raises, ``bad`` its parts that raise, each with its :data:`Step`.
    A mapping keeps its pairs as written (``raw``) and merged (``flat``, ``flat_faults``);
    ``flat_at`` is the round and owner at which PyYAML merges it, which ``!!omap`` needs.
    """

    __slots__ = (
        "bad",
        "body",
        "fault",
        "flat",
        "flat_at",
        "flat_faults",
        "kind",
        "line",
        "raw",
        "seq",
        "value",
    )

    def __init__(self, kind: str, line: int, seq: int, flat_at: tuple[int, int]) -> None:
        self.kind = kind  # PyYAML's node id: "scalar", "sequence" or "mapping"
        self.value: Any = None
        self.line = line
        self.seq = seq  # the node's place in the document, which orders its round
        self.flat_at = flat_at
        self.fault: Fault | None = None
        self.body: list[tuple[Step, str, int]] = []
        self.bad: list[tuple[Step, Built]] = []
        self.raw: list[RawPair] | list[Item] = []
        self.flat: list[Pair] = []
        self.flat_faults: list[Fault] = []

    @property
    def faulty(self) -> bool:
        return self.fault is not None or bool(self.body) or bool(self.bad)


def _undefined(tag: str) -> str:
    return f"could not determine a constructor for the tag {tag!r}"


def merge_scalar(line: int, seq: int) -> Built:
    """A ``<<`` somewhere other than a mapping's key: no constructor reads it."""
    built = Built("scalar", line, seq, (0, seq))
    built.value = "<<"
    built.fault = (_undefined(MERGE), line)
    return built


def kind_of(x: Any) -> str:
    if isinstance(x, Built):
        return x.kind
    return "mapping" if isinstance(x, dict) else "sequence" if isinstance(x, list) else "scalar"


def value_of(x: Any) -> Any:
    return x.value if isinstance(x, Built) else x


def _flat_of(x: Any) -> tuple[list[Pair], list[Fault]]:
    """A mapping's pairs with its merges done, and what merging refused in it."""
    if isinstance(x, Built):
        return x.flat, x.flat_faults
    return [(key, 0, value, key) for key, value in x.items()], []  # a plain dict: str keys


def _items_of(x: Any) -> list[tuple[Any, int]]:
    if isinstance(x, Built):
        return [(item, line) for item, line, _ in x.raw]  # type: ignore[misc]
    return [(item, 0) for item in x]


def _flatten(built: Built, raw: list[RawPair]) -> None:
    """PyYAML's flatten_mapping: the pairs of each ``<<`` mapping (or list of them), a key
    merged once (the first, told apart by identity), before the mapping's own pairs; the
    first refusal stops it, as it stops PyYAML."""
    merged: list[Pair] = []
    own: list[Pair] = []
    seen: set[int] = set()
    faults = built.flat_faults
    for key, key_line, value, value_line, is_merge, identity in raw:
        if not is_merge:
            own.append((key, key_line, value, identity))
            continue
        kind = kind_of(value)
        if kind == "sequence":
            mappings = _items_of(value)
        elif kind == "mapping":
            mappings = [(value, value_line)]
        else:
            problem = f"expected a mapping or list of mappings for merging, but found {kind}"
            faults.append((problem, value_line))
            return
        for item, item_line in mappings:
            if kind_of(item) != "mapping":
                found = kind_of(item)
                faults.append((f"expected a mapping for merging, but found {found}", item_line))
                return
            pairs, inner = _flat_of(item)
            if inner:
                faults += inner
                return
            for pair in pairs:
                if id(pair[3]) not in seen:
                    seen.add(id(pair[3]))
                    merged.append(pair)
    built.flat = merged + own


def _construct_pairs(built: Built) -> dict[Any, Any]:
    """PyYAML's construct_mapping of the merged pairs, its refusals kept in order."""
    data: dict[Any, Any] = {}
    for n, (problem, line) in enumerate(built.flat_faults):
        built.body.append(((0, n), problem, line))
    for i, (key, key_line, value, _) in enumerate(built.flat):
        if isinstance(key, Built) and key.faulty:
            built.bad.append(((1, i, 0), key))
        hashed = value_of(key)
        if isinstance(hashed, Hashable):
            data[hashed] = value_of(value)
        else:
            built.body.append(((1, i, 1), "found unhashable key", key_line))
        if isinstance(value, Built) and value.faulty:
            built.bad.append(((1, i, 2), value))
    return data


def mapping(tag: str, raw: list[RawPair], line: int, seq: int, flat_at: tuple[int, int]) -> Built:
    """A mapping that is not plain, as PyYAML would construct it with ``tag``."""
    built = Built("mapping", line, seq, flat_at)
    built.raw = raw
    _flatten(built, raw)
    if tag in (MAP, _SET):
        data = _construct_pairs(built)
        built.value = data if tag == MAP else set(data)
    elif tag == SEQ:  # the list PyYAML makes before its body refuses the mapping
        built.value = []
        built.body.append(((-1,), "expected a sequence node, but found mapping", line))
    elif tag in (_OMAP, _PAIRS):
        built.value = []
        built.body.append(((-1,), "expected a sequence, but found mapping", line))
    elif tag in _SCALAR_TAGS:
        built.fault = ("expected a scalar node, but found mapping", line)
    else:
        built.fault = (_undefined(tag), line)
    return built


def sequence(tag: str, raw: list[Item], line: int, seq: int, depth: int) -> Built:
    """A list that is not plain (tagged, anchored, merged, or holding a refusal), as PyYAML
    would construct it with ``tag``; ``depth`` is how deep it sits."""
    built = Built("sequence", line, seq, (depth, seq))
    built.raw = raw
    if tag == SEQ:
        built.value = [value_of(item) for item, _, _ in raw]
        built.bad = [((1, i, 0), item) for i, (item, _, _) in enumerate(raw) if _faulty(item)]
    elif tag in (_OMAP, _PAIRS):
        built.value = _pairs(built, raw, (depth + 1, seq))
    elif tag in (MAP, _SET):
        built.value = {} if tag == MAP else set()
        built.body.append(((-1,), "expected a mapping node, but found sequence", line))
    elif tag in _SCALAR_TAGS:
        built.fault = ("expected a scalar node, but found sequence", line)
    else:
        built.fault = (_undefined(tag), line)
    return built


def plain_sequence(value: list[Any], bad: list[tuple[Step, Built]], line: int, seq: int) -> Built:
    """A plain list holding parts that PyYAML would refuse."""
    built = Built("sequence", line, seq, (0, seq))
    built.value, built.bad = value, bad
    return built


def _faulty(x: Any) -> bool:
    return isinstance(x, Built) and x.faulty


def _pairs(built: Built, raw: list[Item], body_at: tuple[int, int]) -> list[tuple[Any, Any]]:
    """PyYAML's construct_yaml_omap (and _pairs): each item a mapping of one pair. An item
    mapping is seen with its merges done if PyYAML merged it before this body's round,
    judged from where the mapping was written (its anchor); that a later alias merges or
    constructs it sooner is not seen."""
    pairs: list[tuple[Any, Any]] = []
    for i, (item, item_line, via_alias) in enumerate(raw):
        kind = kind_of(item)
        if kind != "mapping":
            problem = f"expected a mapping of length 1, but found {kind}"
            built.body.append(((1, i, 0), problem, item_line))
            continue
        if not isinstance(item, Built):
            written: list[Any] = list(item.items())
        elif via_alias and item.flat_at < body_at:
            written = [(key, value) for key, _, value, _ in item.flat]
        else:
            written = [(key, value) for key, _, value, _, _, _ in item.raw]  # type: ignore[misc]
        if len(written) != 1:
            problem = f"expected a single mapping item, but found {len(written)} items"
            built.body.append(((1, i, 0), problem, item_line))
            continue
        key, value = written[0]
        for part, step in ((key, 1), (value, 2)):
            if _faulty(part):
                built.bad.append(((1, i, step), part))
        pairs.append((value_of(key), value_of(value)))
    return pairs


def first_fault(root: Any) -> Fault | None:
    """What PyYAML would refuse first constructing the document ``root``, if anything: it
    runs each list's or mapping's body in the order they were made, breadth first, each
    part constructed once, and stops at the first refusal."""
    if not isinstance(root, Built) or not root.faulty:
        return None
    if root.fault is not None:
        return root.fault
    queue, made = deque([root]), {id(root)}
    while queue:
        built = queue.popleft()
        steps: list[tuple[Step, Fault | None, Built | None]] = [
            (step, (problem, line), None) for step, problem, line in built.body
        ]
        steps += [(step, None, part) for step, part in built.bad]
        for _, fault, part in sorted(steps, key=lambda entry: entry[0]):
            if fault is not None:
                return fault
            assert part is not None
            if part.fault is not None:
                return part.fault
            if id(part) not in made:
                made.add(id(part))
                queue.append(part)
    return None  # unreachable: a faulty Built holds a refusal
