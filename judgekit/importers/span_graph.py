"""The spans of a trace export checked as a graph before anything walks it: each span once,
and parent links that end at a root.

A collector exports at least once, so the same span may come twice: an identical copy is
dropped and counted (:class:`DroppedDuplicates`), a copy that differs is refused naming the id
and both places. Parent links that loop (a span its own parent, two spans each the other's)
are refused naming the ids of the loop, found in one pass over the trace.

>>> from pathlib import Path
>>> from judgekit.importers.locations import Location
>>> refuse_parent_cycles({"a": "b", "b": "a"}, lambda _: Location(Path("t.jsonl"), 4), "span")
Traceback (most recent call last):
...
judgekit.errors.DataError: t.jsonl:4: span ids form a cycle of parents: a → b → a (each id's parent is the next); a trace's parent links must end at a root
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from judgekit.errors import DataError
from judgekit.importers.locations import Location

__all__ = ["DroppedDuplicates", "different_copy", "keep_first", "refuse_parent_cycles"]

Item = TypeVar("Item")
# Past this many ids, a cycle is shown by its first ones and its length.
_CYCLE_SHOWN = 8


class DroppedDuplicates:
    """How many identical copies of a span (observation, run) an import dropped, by what
    they are (``"span"``), for the line the command prints."""

    def __init__(self) -> None:
        self.dropped: dict[str, int] = {}

    def add(self, what: str) -> None:
        self.dropped[what] = self.dropped.get(what, 0) + 1

    def lines(self) -> list[str]:
        """``2 duplicate spans dropped (same id, same content)``, one line per kind.

        >>> dropped = DroppedDuplicates()
        >>> dropped.add("span"); dropped.add("span"); dropped.add("run")
        >>> dropped.lines()
        ['2 duplicate spans dropped (same id, same content)', '1 duplicate run dropped (same id, same content)']
        """
        return [
            f"{count} duplicate {what}{'' if count == 1 else 's'} dropped (same id, same content)"
            for what, count in self.dropped.items()
        ]


def keep_first(
    items: Iterable[Item],
    *,
    key: Callable[[Item], Hashable],
    content: Callable[[Item], Any],
    where: Callable[[Item], Location],
    what: str,
    dropped: DroppedDuplicates,
    id_field: str | None = None,
) -> Iterator[Item]:
    """The items with each ``key`` once: a later item of the same key and ``content`` is
    dropped (and counted in ``dropped`` as a ``what``), one of other content is a DataError
    at the later item's ``id_field`` naming the id and both places."""
    seen: dict[Hashable, Item] = {}
    for item in items:
        first = seen.setdefault(key(item), item)
        if first is item:
            yield item
        elif content(first) == content(item):
            dropped.add(what)
        else:
            raise different_copy(what, _shown_id(key(item)), where(first), where(item), id_field)


def different_copy(
    what: str, shown_id: str, first: Location, later: Location, id_field: str | None = None
) -> DataError:
    """The error for a second ``what`` of the id ``shown_id`` that differs from the first."""
    return (later.key(id_field) if id_field else later).error(
        f"{what} id {shown_id} appears twice with different content: {_place(first)} and "
        f"{_place(later)}; {_article(what)} {what} id names one {what}"
    )


def refuse_parent_cycles(
    parents: Mapping[str, str | None], where: Callable[[str], Location], what: str
) -> None:
    """A DataError at the first id of a cycle of ``parents`` (id → its parent's id), naming
    the ids of the cycle; nothing when every chain of parents ends (at a root, or at an id
    not in ``parents``). Each id is visited once."""
    finished: set[str] = set()
    for start in parents:
        chain: dict[str, int] = {}  # the ids walked from start, in order
        node: str | None = start
        while node is not None and node in parents and node not in finished:
            if node in chain:
                _raise_cycle(list(chain)[chain[node] :], where, what)
            chain[node] = len(chain)
            node = parents[node]
        finished.update(chain)


def _raise_cycle(cycle: list[str], where: Callable[[str], Location], what: str) -> None:
    shown = [_shown_id(node) for node in cycle[:_CYCLE_SHOWN]]
    more = f" → … ({len(cycle)} {what}s)" if len(cycle) > _CYCLE_SHOWN else ""
    loop = " → ".join([*shown, _shown_id(cycle[0])]) if not more else " → ".join(shown) + more
    raise where(cycle[0]).error(
        f"{what} ids form a cycle of parents: {loop} (each id's parent is the next); "
        "a trace's parent links must end at a root"
    )


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _shown_id(key: Hashable) -> str:
    # A key may be (trace id, span id): the span id names it.
    return str(key[-1]) if isinstance(key, tuple) else str(key)


def _place(where: Location) -> str:
    parts = [f"line {where.line}" if where.line is not None else "", where.field]
    return ", ".join(part for part in parts if part) or str(where.path)
