"""Matchers of dicts and lists: key by key, item by item, containing, subsets, any order."""

from __future__ import annotations

from typing import Any

from judgekit._util.matching import maximum_matching
from judgekit.formats.matchers.base import Matcher, Mismatch
from judgekit.formats.matchers.rendering import render_value


class DictOf(Matcher):
    """A plain dict: each listed key matches; unlisted keys fail unless ``extra`` allows."""

    def __init__(self, children: dict[str, Matcher], *, allow_extra: bool, noun: str) -> None:
        self.children = children
        self.allow_extra = allow_extra
        self.noun = noun  # "argument" at the top of a call, "key" deeper down

    def check(self, actual: Any) -> Mismatch | None:
        if not isinstance(actual, dict):
            return Mismatch((), f"expected a dict, got {render_value(actual)}")
        for key, child in self.children.items():
            if key not in actual:
                if child.optional or child.absent:
                    continue
                return Mismatch((key,), f"missing {self.noun} (expected {child.describe()})")
            found = child.check(actual[key])
            if found is not None:
                return found.under(key)
        if not self.allow_extra:
            for key in actual:
                if key not in self.children:
                    return Mismatch(
                        (key,), f"unexpected {self.noun} (value {render_value(actual[key])})"
                    )
        return None

    def mismatches(self, actual: dict[str, Any]) -> list[Mismatch]:
        """Every failing key, not only the first (for reasons that say all that is wrong)."""
        found: list[Mismatch] = []
        for key, child in self.children.items():
            if key not in actual:
                if not (child.optional or child.absent):
                    found.append(
                        Mismatch((key,), f"missing {self.noun} (expected {child.describe()})")
                    )
                continue
            problem = child.check(actual[key])
            if problem is not None:
                found.append(problem.under(key))
        if not self.allow_extra:
            found.extend(
                Mismatch((key,), f"unexpected {self.noun} (value {render_value(value)})")
                for key, value in actual.items()
                if key not in self.children
            )
        return found

    def describe(self) -> str:
        return "{" + ", ".join(f"{k}: {m.describe()}" for k, m in self.children.items()) + "}"


class ListOf(Matcher):
    def __init__(self, items: list[Matcher]) -> None:
        self.items = items

    def check(self, actual: Any) -> Mismatch | None:
        if not isinstance(actual, list):
            return Mismatch((), f"expected a list, got {render_value(actual)}")
        if len(actual) != len(self.items):
            return Mismatch(
                (), f"expected {len(self.items)} items, got {len(actual)}: {render_value(actual)}"
            )
        for index, (item, value) in enumerate(zip(self.items, actual, strict=True)):
            found = item.check(value)
            if found is not None:
                return found.under(index)
        return None

    def describe(self) -> str:
        return "[" + ", ".join(m.describe() for m in self.items) + "]"


class Contains(Matcher):
    """Substring(s) of a string, or item(s) of a list (each item may be a matcher)."""

    def __init__(self, needles: list[Any], item_matchers: list[Matcher]) -> None:
        self.needles = needles
        self.item_matchers = item_matchers

    def check(self, actual: Any) -> Mismatch | None:
        if isinstance(actual, str):
            for needle in self.needles:
                if not isinstance(needle, str) or needle not in actual:
                    return Mismatch(
                        (),
                        f"expected to contain {render_value(needle)}, got {render_value(actual)}",
                    )
            return None
        if isinstance(actual, list):
            for matcher in self.item_matchers:
                if not any(matcher.check(item) is None for item in actual):
                    return Mismatch(
                        (),
                        f"expected an item matching {matcher.describe()}, got {render_value(actual)}",
                    )
            return None
        return Mismatch((), f"expected a string or list to search, got {render_value(actual)}")

    def describe(self) -> str:
        return "containing " + ", ".join(render_value(n) for n in self.needles)


class Subset(Matcher):
    """A dict with at least these keys, or a list with at least these items (any order)."""

    def __init__(self, dict_part: DictOf | None, list_items: list[Matcher] | None) -> None:
        self.dict_part = dict_part
        self.list_items = list_items

    def check(self, actual: Any) -> Mismatch | None:
        if self.dict_part is not None:
            return self.dict_part.check(actual)
        assert self.list_items is not None
        if not isinstance(actual, list):
            return Mismatch((), f"expected a list, got {render_value(actual)}")
        pairs = [[m.check(item) is None for item in actual] for m in self.list_items]
        matched = sum(1 for owner in maximum_matching(pairs, len(actual)) if owner != -1)
        if matched == len(self.list_items):
            return None
        return Mismatch(
            (),
            f"expected items {self.describe()} among {render_value(actual)} "
            f"({len(self.list_items) - matched} not found)",
        )

    def describe(self) -> str:
        if self.dict_part is not None:
            return self.dict_part.describe()
        assert self.list_items is not None
        return "[" + ", ".join(m.describe() for m in self.list_items) + "]"


class Unordered(Matcher):
    """A list holding exactly these items in any order, as a multiset (each item a matcher).

    Items pair by a maximum matching, so a loose item written first (``$any``) never takes
    the only value a stricter one could use.
    """

    _SHOWN = 3  # leftovers named in a reason; the rest are counted

    def __init__(self, items: list[Matcher]) -> None:
        self.items = items

    def check(self, actual: Any) -> Mismatch | None:
        if not isinstance(actual, list):
            return Mismatch((), f"expected a list, got {render_value(actual)}")
        pairs = [[m.check(value) is None for value in actual] for m in self.items]
        owner = maximum_matching(pairs, len(actual))
        matched_items = {i for i in owner if i != -1}
        missing = [m.describe() for i, m in enumerate(self.items) if i not in matched_items]
        extra = [render_value(value) for value, i in zip(actual, owner, strict=True) if i == -1]
        if not missing and not extra:
            return None
        parts = [
            f"{label} {self._listed(found)}"
            for label, found in (("missing", missing), ("unexpected", extra))
            if found
        ]
        return Mismatch(
            (), f"expected {self.describe()}, got {render_value(actual)}: {'; '.join(parts)}"
        )

    def _listed(self, shown: list[str]) -> str:
        more = len(shown) - self._SHOWN
        return ", ".join(shown[: self._SHOWN]) + (f" and {more} more" if more > 0 else "")

    def describe(self) -> str:
        return "[" + ", ".join(m.describe() for m in self.items) + "] in any order"
