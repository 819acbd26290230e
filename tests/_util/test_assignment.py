"""The optimal assignment against scipy's, and the maximum matching against brute force."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from judgekit._util.assignment import min_cost_assignment
from judgekit._util.matching import maximum_matching

matrices = st.integers(1, 6).flatmap(
    lambda rows: st.integers(1, 6).flatmap(
        lambda cols: st.lists(
            st.lists(st.sampled_from([0, 1, 2, 3, 7, 10_000]), min_size=cols, max_size=cols),
            min_size=rows,
            max_size=rows,
        )
    )
)


@given(matrices)
def test_min_cost_assignment_matches_scipy(costs: list[list[int]]) -> None:
    pairs = min_cost_assignment(costs)
    rows, cols = linear_sum_assignment(costs)
    assert len(pairs) == min(len(costs), len(costs[0]))
    assert len({r for r, _ in pairs}) == len(pairs) == len({c for _, c in pairs})
    assert sum(costs[r][c] for r, c in pairs) == sum(
        costs[r][c] for r, c in zip(rows, cols, strict=True)
    )


@given(st.lists(st.lists(st.booleans(), min_size=4, max_size=4), max_size=5))
def test_maximum_matching_is_maximum(adjacency: list[list[bool]]) -> None:
    owner = maximum_matching(adjacency, 4)
    size = sum(1 for o in owner if o != -1)
    assert all(adjacency[o][j] for j, o in enumerate(owner) if o != -1)
    best = 0
    for columns in permutations(range(4), min(len(adjacency), 4)):
        best = max(best, sum(1 for i, j in enumerate(columns) if adjacency[i][j]))
    if len(adjacency) <= 4:
        assert size == best
