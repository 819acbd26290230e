"""The input handling the agreement statistics share (label encoding, confusion tables);
the contract they keep is :mod:`judgekit.stats._contract`, re-exported here.

Impossible input raises :class:`StatisticsInputError` (a ``ValueError``, and a
:class:`~judgekit.errors.CalibrationError` so the CLI reports it in one line). A value the
data cannot define is ``nan`` with an :class:`UndefinedStatisticWarning`, unless the caller
passes ``replace_undefined_by=``: then it is that value, and nothing is warned.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from judgekit.stats._contract import (
    StatisticsInputError,
    check_same_length,
)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def ordered_labels(values: Sequence[Hashable]) -> list[Hashable]:
    """The distinct labels, sorted (as sklearn's ``np.unique``); unorderable mixes are refused."""
    distinct = set(values)
    try:
        return sorted(distinct)  # type: ignore[type-var]
    except TypeError:
        raise StatisticsInputError(
            f"labels of different kinds cannot be ordered ({sorted({type(v).__name__ for v in distinct})}); "
            "pass labels= to fix the order"
        ) from None


@dataclass(frozen=True)
class Pairs:
    """Two raters' labels encoded as codes into ``labels`` (pairs outside ``labels`` dropped)."""

    labels: list[Hashable]
    codes_1: IntArray
    codes_2: IntArray

    @property
    def k(self) -> int:
        return len(self.labels)

    @property
    def n(self) -> int:
        return int(self.codes_1.size)

    def table(self) -> IntArray:
        """Counts: rows are the first rater's label, columns the second's."""
        k = self.k
        flat = np.bincount(self.codes_1 * k + self.codes_2, minlength=k * k)
        return flat.reshape(k, k).astype(np.int64)


def encode_pairs(
    y1: Sequence[Hashable],
    y2: Sequence[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
    names: tuple[str, str] = ("y1", "y2"),
) -> Pairs:
    """Check and encode two paired label sequences.

    As in scikit-learn, ``labels`` fixes the label set and order, and a pair with a label
    outside it is left out; if no pair is left, that is an error.
    """
    first, second = list(y1), list(y2)
    check_same_length(names[0], first, names[1], second)
    if not first:
        raise StatisticsInputError(f"no pairs: {names[0]} and {names[1]} are empty")
    if labels is None:
        label_list = ordered_labels(first + second)
    else:
        label_list = list(labels)
        if not label_list:
            raise StatisticsInputError("labels= is empty")
        if len(set(label_list)) != len(label_list):
            raise StatisticsInputError(f"labels= repeats a label: {label_list!r}")
    index = {label: i for i, label in enumerate(label_list)}
    codes_1 = np.fromiter((index.get(v, -1) for v in first), dtype=np.int64, count=len(first))
    codes_2 = np.fromiter((index.get(v, -1) for v in second), dtype=np.int64, count=len(second))
    keep = (codes_1 >= 0) & (codes_2 >= 0)
    if not keep.all():
        codes_1, codes_2 = codes_1[keep], codes_2[keep]
        if codes_1.size == 0:
            raise StatisticsInputError(
                f"no pairs: none of the {len(first)} pairs has both labels in labels={label_list!r}"
            )
    return Pairs(label_list, codes_1, codes_2)
