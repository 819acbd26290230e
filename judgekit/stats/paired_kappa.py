"""Two judges against the same human labels: how much better one's Cohen's kappa is, over
paired bootstrap resamples of the items (the same resampled items for both judges).

Each resample draws the n items with replacement (seeded) and computes kappa(human, B) -
kappa(human, A) on it. All resamples are counted at once: each item is encoded h·K² + a·K + b,
a chunk of resamples is a (rows, n) index matrix counted with one flat ``np.bincount`` (a K³
offset per row) into joint tables, whose margins are the (human, A) and (human, B) tables.
Kappa is undefined in a resample where either judge's chance agreement is total, detected
exactly as :func:`~judgekit.stats.cohen_kappa_score` detects it (an integer test).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from judgekit.stats._contract import (
    ReplaceUndefined,
    StatisticsInputError,
    check_replacement,
    check_same_length,
    undefined,
)
from judgekit.stats._validation import FloatArray, IntArray, ordered_labels
from judgekit.stats.agreement import disagreement_weights, table_kappas

__all__ = ["paired_kappa_differences"]

CHUNK_CELLS = 1 << 22  # index cells drawn per chunk: bounds the memory of one chunk


def _encode_triples(
    y_true: Sequence[Hashable],
    y_a: Sequence[Hashable],
    y_b: Sequence[Hashable],
    labels: Sequence[Hashable] | None,
) -> tuple[int, IntArray, IntArray, IntArray]:
    """The number of labels and the three sequences as codes into them; as in scikit-learn,
    an item with a label outside ``labels`` is left out."""
    human, first, second = list(y_true), list(y_a), list(y_b)
    check_same_length("y_true", human, "y_a", first)
    check_same_length("y_true", human, "y_b", second)
    if not human:
        raise StatisticsInputError("no items: y_true, y_a and y_b are empty")
    label_list = list(labels) if labels is not None else ordered_labels(human + first + second)
    if not label_list:
        raise StatisticsInputError("labels= is empty")
    if len(set(label_list)) != len(label_list):
        raise StatisticsInputError(f"labels= repeats a label: {label_list!r}")
    index = {label: i for i, label in enumerate(label_list)}
    codes = np.array(
        [[index.get(v, -1) for v in values] for values in (human, first, second)], dtype=np.int64
    )
    kept = codes[:, (codes >= 0).all(axis=0)]
    if kept.shape[1] == 0:
        raise StatisticsInputError(
            f"no items: none of the {len(human)} items has all three labels in "
            f"labels={label_list!r}"
        )
    return len(label_list), kept[0], kept[1], kept[2]


def paired_kappa_differences(
    y_true: Sequence[Hashable],
    y_a: Sequence[Hashable],
    y_b: Sequence[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> FloatArray:
    """kappa(y_true, y_b) - kappa(y_true, y_a) on each of ``n_resamples`` paired bootstrap
    resamples of the items, seeded by ``seed``; positive where judge B agrees better.

    ``labels=`` fixes the label set as in :func:`~judgekit.stats.cohen_kappa_score`. A
    resample where either kappa is undefined is nan, with one warning for the call, or
    ``replace_undefined_by`` (not warned) when given. A percentile interval of the defined
    differences is the paired bootstrap interval of the difference of kappas.

    >>> human = ["pass", "pass", "fail", "fail", "pass", "fail"]
    >>> a = ["pass", "fail", "fail", "fail", "pass", "pass"]
    >>> differences = paired_kappa_differences(human, a, human, n_resamples=5, seed=1)
    >>> [round(float(d), 4) for d in differences]
    [0.3333, 1.3333, 0.6667, 0.6667, 0.6667]
    """
    k, human, first, second = _encode_triples(y_true, y_a, y_b, labels)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise StatisticsInputError(f"n_resamples must be a whole number ≥ 1, got {n_resamples!r}")
    check_replacement(replace_undefined_by)
    disagreement = disagreement_weights(k, None)
    n, cells = human.size, k**3
    encoded = human * k * k + first * k + second
    rng = np.random.default_rng(seed)
    rows = max(1, min(n_resamples, CHUNK_CELLS // n))
    out = np.empty(n_resamples, dtype=float)
    for start in range(0, n_resamples, rows):
        stop = min(n_resamples, start + rows)
        index = rng.integers(0, n, size=(stop - start, n))
        offsets = (np.arange(stop - start) * cells)[:, None]
        flat = np.bincount((encoded[index] + offsets).ravel(), minlength=(stop - start) * cells)
        joint = flat.reshape(stop - start, k, k, k)  # human, A, B
        out[start:stop] = table_kappas(joint.sum(axis=2), disagreement) - table_kappas(
            joint.sum(axis=3), disagreement
        )
    missing = np.isnan(out)
    if missing.any():
        out[missing] = undefined(
            f"kappa is undefined in {int(missing.sum())} of {n_resamples} paired resamples "
            "(one label throughout for the humans and a judge)",
            replace_undefined_by,
        )
    return out
