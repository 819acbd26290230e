"""Hypothesis strategies shared by the calibration tests."""

from __future__ import annotations

from hypothesis import strategies as st

LETTERS = ["a", "b", "c", "d"]


@st.composite
def label_pairs(
    draw: st.DrawFn, *, alphabet: list[str] | list[int] = LETTERS, max_size: int = 40
) -> tuple[list[str] | list[int], list[str] | list[int]]:
    """Two equal-length label lists over (a prefix of) the alphabet."""
    k = draw(st.integers(min_value=1, max_value=len(alphabet)))
    values = st.sampled_from(alphabet[:k])
    pairs = draw(st.lists(st.tuples(values, values), min_size=1, max_size=max_size))
    return [p[0] for p in pairs], [p[1] for p in pairs]  # type: ignore[return-value]
