"""Multiple testing: which of several hypotheses to reject while keeping the chance of any
false rejection at most ``alpha``."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

from judgekit.stats._contract import StatisticsInputError

__all__ = ["holm_rejections"]

Name = TypeVar("Name", bound=Hashable)


def holm_rejections(p_values: Mapping[Name, float], *, alpha: float) -> set[Name]:
    """The hypotheses Holm's step-down procedure rejects at family-wise level ``alpha``.

    The p-values are taken from smallest to largest; the k-th smallest (from 0) is rejected
    while it is below ``alpha / (m - k)`` for m hypotheses, and the procedure stops at the
    first that is not. It keeps the chance of any false rejection at most ``alpha`` and
    rejects at least what Bonferroni's ``alpha / m`` rejects; with one hypothesis it is the
    plain test. An ``alpha`` outside (0, 1) raises :class:`StatisticsInputError`.

    >>> sorted(holm_rejections({"a": 0.01, "b": 0.04, "c": 0.03}, alpha=0.05))
    ['a']
    >>> sorted(holm_rejections({"a": 0.01, "b": 0.02}, alpha=0.05))
    ['a', 'b']
    """
    if not 0 < alpha < 1:
        raise StatisticsInputError(f"alpha must be between 0 and 1, got {alpha!r}")
    rejected: set[Name] = set()
    ordered = sorted(p_values.items(), key=lambda item: item[1])
    for rank, (name, p) in enumerate(ordered):
        if p >= alpha / (len(ordered) - rank):
            break
        rejected.add(name)
    return rejected
