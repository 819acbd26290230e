"""Maximum bipartite matching, used wherever items must be paired without greed.

Greedy pairing makes a verdict depend on the order items are listed (an early expectation
can take the only call a later one could use); a maximum matching does not.
"""

from __future__ import annotations

from collections.abc import Sequence


def maximum_matching(adjacency: Sequence[Sequence[bool]], n_right: int) -> list[int]:
    """Pair left items with right items; ``owner[j]`` is the left item of right item ``j``.

    ``adjacency[i][j]`` says whether left ``i`` may pair with right ``j``; unpaired right
    items have owner -1. The matching has maximum size (augmenting paths, fine for the
    handfuls of calls in a run).

    >>> maximum_matching([[True, True], [True, False]], 2)
    [1, 0]
    """
    owner = [-1] * n_right

    def augment(i: int, seen: list[bool]) -> bool:
        row = adjacency[i]
        for j in range(n_right):
            if row[j] and not seen[j]:
                seen[j] = True
                if owner[j] == -1 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(len(adjacency)):
        augment(i, [False] * n_right)
    return owner
