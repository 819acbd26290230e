"""Whether a table of remembered results pays for its lookups.

A lookup that misses costs a key, a hash and an insertion on top of the work it hoped to
skip. :class:`HitRate` counts a table's hits over windows of lookups; after a window with
too few hits the table is left alone for a while (the work is simply done), then tried
again, so a stream whose contents never repeat pays almost nothing for the table and one
whose contents start repeating soon uses it again.
"""

from __future__ import annotations

from typing import Final

_WINDOW: Final = 512  # lookups judged together
_LEAST_HITS: Final = _WINDOW // 16  # fewer hits than this in a window: not worth it ...
_REST: Final = 8 * _WINDOW  # ... for this many lookups


class HitRate:
    """A table's recent hits, and whether to consult it now."""

    __slots__ = ("_hits", "_looked", "_resting")

    def __init__(self) -> None:
        self._looked = self._hits = self._resting = 0

    def worth_a_look(self) -> bool:
        """False while the table rests (each call counts one lookup skipped)."""
        if self._resting:
            self._resting -= 1
            return False
        return True

    def looked(self, hit: bool) -> None:
        """Count one lookup, found or not."""
        self._looked += 1
        if hit:
            self._hits += 1
        if self._looked == _WINDOW:
            if self._hits < _LEAST_HITS:
                self._resting = _REST
            self._looked = self._hits = 0
