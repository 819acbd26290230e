"""Optimal assignment (Hungarian algorithm) for the small cost matrices of a run's calls.

Pure Python: the matrices are a handful of rows, and importing a numerical library for them
would cost more than every assignment a grading run makes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def min_cost_assignment(costs: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Pairs ``(row, column)`` covering min(rows, columns) items at the least total cost.

    >>> min_cost_assignment([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
    [(0, 1), (1, 0), (2, 2)]
    """
    if not costs or not costs[0]:
        return []
    transposed = len(costs) > len(costs[0])
    matrix = (
        [list(col) for col in zip(*costs, strict=True)] if transposed else [list(r) for r in costs]
    )
    rows, cols = len(matrix), len(matrix[0])
    # Shortest augmenting paths with potentials (rows ≤ columns), 1-based bookkeeping.
    u = [0.0] * (rows + 1)
    v = [0.0] * (cols + 1)
    match_of_col = [0] * (cols + 1)
    way = [0] * (cols + 1)
    for row in range(1, rows + 1):
        match_of_col[0] = row
        col0 = 0
        min_to = [math.inf] * (cols + 1)
        used = [False] * (cols + 1)
        while True:
            used[col0] = True
            row0 = match_of_col[col0]
            delta = math.inf
            col1 = 0
            for col in range(1, cols + 1):
                if not used[col]:
                    reduced = matrix[row0 - 1][col - 1] - u[row0] - v[col]
                    if reduced < min_to[col]:
                        min_to[col] = reduced
                        way[col] = col0
                    if min_to[col] < delta:
                        delta = min_to[col]
                        col1 = col
            for col in range(cols + 1):
                if used[col]:
                    u[match_of_col[col]] += delta
                    v[col] -= delta
                else:
                    min_to[col] -= delta
            col0 = col1
            if match_of_col[col0] == 0:
                break
        while col0:
            col1 = way[col0]
            match_of_col[col0] = match_of_col[col1]
            col0 = col1
    pairs = [(match_of_col[col] - 1, col - 1) for col in range(1, cols + 1) if match_of_col[col]]
    if transposed:
        pairs = [(col, row) for row, col in pairs]
    return sorted(pairs)
