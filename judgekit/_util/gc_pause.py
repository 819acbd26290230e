"""Reading a large file without the cyclic garbage collector.

A reader that builds a document (a suite of 20,000 tasks: hundreds of thousands of nodes,
lists and dicts, all alive until it returns) triggers a collection every 700 allocations,
each walking the whole growing heap and freeing nothing: about two thirds of the time of
loading a large suite. Reference counting still frees everything that dies meanwhile.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Switch the cyclic collector off for the block, and back on after it if it was on
    (so blocks nest)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
