"""Krippendorff's alpha for any number of labellers, with missing labels: the `krippendorff`
package computes it (imported when called); judgekit checks the input and keeps its contract."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np

from judgekit.stats._contract import (
    ReplaceUndefined,
    StatisticsInputError,
    check_replacement,
    undefined,
)
from judgekit.stats._validation import FloatArray, ordered_labels

__all__ = ["krippendorff_alpha"]

Level = Literal["nominal", "ordinal", "interval"]


def krippendorff_alpha(
    ratings: Sequence[Sequence[Hashable | None]],
    *,
    level: Level = "nominal",
    replace_undefined_by: ReplaceUndefined = "warn",
) -> float:
    """Krippendorff's alpha, 1 - D_o / D_e, from the coincidence matrix of the labels
    (``krippendorff.alpha`` with ``level_of_measurement=level``).

    ``ratings`` has one row per item and one column per labeller, ``None`` (or a float nan)
    where a labeller did not label the item. Items with fewer than two labels carry no
    pairs and are left out. ``level`` picks the difference between two labels: ``nominal``
    (0 if equal, else 1), ``ordinal`` (by the ranks of the labels' sorted order, weighted by
    how often each label occurs) or ``interval`` (squared difference; numeric labels only).
    nan (warned) when there are no pairable labels or only one distinct label, or
    ``replace_undefined_by`` (not warned) when given.

    >>> krippendorff_alpha([["a", "a"], ["b", "b"], ["a", "b"]])
    0.4444444444444444
    >>> round(krippendorff_alpha([[1, 1, None], [2, 3, 3], [None, None, 1]], level="interval"), 4)
    0.8
    """
    if level not in ("nominal", "ordinal", "interval"):
        raise StatisticsInputError(
            f"level must be 'nominal', 'ordinal' or 'interval', got {level!r}"
        )
    rows = _rows(ratings)
    values = _distinct_values(rows, level)
    check_replacement(replace_undefined_by)
    counts = _pairable_counts(rows, values)
    if counts.size == 0:
        return undefined(
            "Krippendorff's alpha is undefined: no item has two labels", replace_undefined_by
        )
    if np.count_nonzero(counts.sum(axis=0)) < 2:
        return undefined(
            "Krippendorff's alpha is undefined with a single distinct label", replace_undefined_by
        )
    import krippendorff

    # The package takes the items × values counts directly; at the ordinal level only the
    # values' order matters, so their ranks stand in for them (labels may be strings).
    domain = np.array(values if level == "interval" else range(len(values)), dtype=float)
    return float(
        krippendorff.alpha(value_counts=counts, value_domain=domain, level_of_measurement=level)
    )


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _rows(ratings: Sequence[Sequence[Hashable | None]]) -> list[list[Hashable | None]]:
    """The ratings as lists, refused when there are none or the rows differ in length."""
    rows = [list(row) for row in ratings]
    if not rows:
        raise StatisticsInputError("no ratings: ratings has no items")
    widths = {len(row) for row in rows}
    if len(widths) != 1:
        raise StatisticsInputError(
            f"every item must have one entry per labeller (None if missing), got row lengths {sorted(widths)}"
        )
    return rows


def _distinct_values(rows: list[list[Hashable | None]], level: Level) -> list[Hashable]:
    """The labels given, sorted where the level orders them, else in order of appearance."""
    present = [v for row in rows for v in row if not _missing(v)]
    if level == "interval":
        bad = [v for v in present if isinstance(v, bool) or not isinstance(v, int | float)]
        if bad:
            raise StatisticsInputError(f"interval alpha needs numeric labels, got {bad[0]!r}")
    return ordered_labels(present) if level != "nominal" else list(dict.fromkeys(present))


def _pairable_counts(rows: list[list[Hashable | None]], values: list[Hashable]) -> FloatArray:
    """Items × values: how many labellers gave each value, for items with two labels or more."""
    index = {v: i for i, v in enumerate(values)}
    counts = np.zeros((len(rows), len(values)))
    for u, row in enumerate(rows):
        for v in row:
            if not _missing(v):
                counts[u, index[v]] += 1
    pairable: FloatArray = counts[counts.sum(axis=1) >= 2]
    return pairable
