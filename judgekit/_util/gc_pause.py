"""Reading a large file without the cyclic garbage collector.

A reader that builds a document (a suite of 20,000 tasks: hundreds of thousands of nodes,
lists and dicts, all alive until it returns) triggers a collection every 700 allocations,
each walking the whole growing heap and freeing nothing: most of the time of loading a
large suite. Reference counting still frees everything that dies meanwhile.

What such a block leaves behind is long-lived (the loaded tasks), yet the collector would
walk all of it once in its youngest generation and again in the middle one before it
learned that: much of the load's time again. So a block that leaves many objects
moves them straight to the oldest generation, where only full collections look.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

PROMOTE_AT = 100_000
"""Objects left by a paused block (net of those freed) from which they are moved to the
oldest generation; below it (a rubric, a price table) the collector sorts them as usual."""


@contextmanager
def gc_paused() -> Iterator[None]:
    """Switch the cyclic collector off for the block, and back on after it if it was on
    (so blocks nest); a block that left :data:`PROMOTE_AT` objects or more has them moved
    to the oldest generation."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _promote_if_many()
            gc.enable()


def _promote_if_many() -> None:
    # freeze() then unfreeze() moves every young object to the oldest generation without
    # walking any. Skipped while objects are frozen: unfreezing would thaw someone else's
    # (a server that froze its heap before forking).
    if gc.get_count()[0] >= PROMOTE_AT and gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
