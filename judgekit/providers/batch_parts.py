"""A request set split into the batches a provider's limits allow.

OpenAI's Batch API takes at most 50,000 requests in an input file of at most 200 MB;
Anthropic's Message Batches at most 100,000 requests or 256 MB, whichever comes first. A
larger set goes out as several batches, filled in the order of their custom ids: the same
set always splits the same way, so a rerun finds each part's batch record again.

>>> split_batches([("a", 40), ("b", 40), ("c", 40), ("d", 10)], max_requests=3, max_bytes=100)
[['a', 'b'], ['c', 'd']]
>>> split_batches([("b", 1), ("a", 1), ("c", 1)], max_requests=2, max_bytes=100)
[['a', 'b'], ['c']]
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["split_batches"]


def split_batches(
    sizes: Iterable[tuple[str, int]], *, max_requests: int, max_bytes: int
) -> list[list[str]]:
    """The custom ids of ``sizes`` (custom id, bytes it takes in the batch) in parts of at
    most ``max_requests`` ids and ``max_bytes`` bytes each, in custom id order. A request
    larger than ``max_bytes`` alone is a part of its own (the provider says why it refuses)."""
    parts: list[list[str]] = []
    current: list[str] = []
    used = 0
    for custom_id, size in sorted(sizes):
        if current and (len(current) >= max_requests or used + size > max_bytes):
            parts.append(current)
            current, used = [], 0
        current.append(custom_id)
        used += size
    if current:
        parts.append(current)
    return parts
