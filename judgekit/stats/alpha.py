"""Krippendorff's alpha for any number of labellers, with missing labels."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np

from judgekit.stats._validation import CalibrationInputError, ordered_labels, undefined

__all__ = ["krippendorff_alpha"]


def krippendorff_alpha(
    ratings: Sequence[Sequence[Hashable | None]],
    *,
    level: Literal["nominal", "ordinal", "interval"] = "nominal",
) -> float:
    """Krippendorff's alpha, 1 - D_o / D_e, from the coincidence matrix of the labels.

    ``ratings`` has one row per item and one column per labeller, ``None`` (or a float nan)
    where a labeller did not label the item. Items with fewer than two labels carry no
    pairs and are left out. ``level`` picks the difference between two labels: ``nominal``
    (0 if equal, else 1), ``ordinal`` (by the ranks of the labels' sorted order, weighted by
    how often each label occurs) or ``interval`` (squared difference; numeric labels only).
    nan (warned) when there are no pairable labels or only one distinct label.

    >>> krippendorff_alpha([["a", "a"], ["b", "b"], ["a", "b"]])
    0.4444444444444444
    >>> round(krippendorff_alpha([[1, 1, None], [2, 3, 3], [None, None, 1]], level="interval"), 4)
    0.8
    """
    if level not in ("nominal", "ordinal", "interval"):
        raise CalibrationInputError(
            f"level must be 'nominal', 'ordinal' or 'interval', got {level!r}"
        )
    rows = [list(row) for row in ratings]
    if not rows:
        raise CalibrationInputError("no ratings: ratings has no items")
    widths = {len(row) for row in rows}
    if len(widths) != 1:
        raise CalibrationInputError(
            f"every item must have one entry per labeller (None if missing), got row lengths {sorted(widths)}"
        )

    def missing(value: object) -> bool:
        return value is None or (isinstance(value, float) and math.isnan(value))

    present = [v for row in rows for v in row if not missing(v)]
    if level == "interval":
        bad = [v for v in present if isinstance(v, bool) or not isinstance(v, int | float)]
        if bad:
            raise CalibrationInputError(f"interval alpha needs numeric labels, got {bad[0]!r}")
    values = ordered_labels(present) if level != "nominal" else list(dict.fromkeys(present))
    index = {v: i for i, v in enumerate(values)}
    n_values = len(values)
    counts = np.zeros((len(rows), n_values))  # items × values: how many labellers gave each
    for u, row in enumerate(rows):
        for v in row:
            if not missing(v):
                counts[u, index[v]] += 1
    per_item = counts.sum(axis=1)
    pairable = per_item >= 2
    counts, per_item = counts[pairable], per_item[pairable]
    if counts.size == 0:
        return undefined("Krippendorff's alpha is undefined: no item has two labels")
    # Coincidences o_ck = Σ_u n_uc (n_uk - [c = k]) / (m_u - 1).
    scaled = counts / (per_item - 1.0)[:, None]
    coincidence = scaled.T @ counts - np.diag(scaled.sum(axis=0))
    marginal = coincidence.sum(axis=1)
    total = float(marginal.sum())
    if level == "nominal":
        delta = 1.0 - np.eye(n_values)
    elif level == "interval":
        numeric = np.array(values, dtype=float)
        delta = (numeric[:, None] - numeric[None, :]) ** 2
    else:
        cumulative = np.cumsum(marginal)  # Σ_{g ≤ k} n_g
        between = cumulative[None, :] - cumulative[:, None] + marginal[:, None]  # Σ_{g=c}^{k}
        delta = (between - (marginal[:, None] + marginal[None, :]) / 2.0) ** 2
        delta = np.triu(delta) + np.triu(delta, 1).T
    observed = float((coincidence * delta).sum())
    expected = float((np.outer(marginal, marginal) * delta).sum()) / (total - 1.0)
    if expected == 0.0:
        return undefined("Krippendorff's alpha is undefined with a single distinct label")
    return 1.0 - observed / expected
