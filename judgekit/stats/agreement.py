"""Agreement between two raters (a human and a judge): percent agreement, Cohen's kappa with
its analytic and bootstrap intervals, Gwet's AC1, and the confusion table.

Kappa, weighted kappa and the confusion table are scikit-learn's (``sklearn.metrics``,
imported inside the functions so that start-up stays light); judgekit keeps what it has not:
the intervals, the sample size, AC1, and the vectorised kappa of many bootstrap tables.

Every function takes two equal-length sequences of hashable labels (str, int, bool). As in
scikit-learn, ``labels=`` fixes the label set and order; without it the labels are the sorted
distinct values, and a pair with a label outside ``labels`` is left out. Where kappa is
undefined, ``replace_undefined_by=`` names the value to return instead of a warned nan.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np

from judgekit.stats._contract import (
    ReplaceUndefined,
    StatisticsInputError,
    check_replacement,
    undefined,
    z_value,
)
from judgekit.stats._validation import FloatArray, IntArray, Pairs, encode_pairs

__all__ = [
    "cohen_kappa_score",
    "confusion",
    "gwet_ac1_score",
    "kappa_interval",
    "kappa_sample_size",
    "kappa_standard_error",
    "percent_agreement",
]

Weights = Literal["linear", "quadratic"] | None


def percent_agreement(y1: Sequence[Hashable], y2: Sequence[Hashable]) -> float:
    """The share of pairs on which the two raters give the same label.

    >>> percent_agreement(["pass", "pass", "fail", "fail"], ["pass", "fail", "fail", "fail"])
    0.75
    """
    pairs = encode_pairs(y1, y2)
    return float(np.count_nonzero(pairs.codes_1 == pairs.codes_2)) / pairs.n


def confusion(
    y1: Sequence[Hashable], y2: Sequence[Hashable], *, labels: Sequence[Hashable] | None = None
) -> dict[Hashable, dict[Hashable, int]]:
    """Counts of each (first rater's label, second rater's label), every label in both keys.

    With ``y1`` the human labels and ``y2`` the judge's: human label -> judge label -> count,
    the same numbers as ``sklearn.metrics.confusion_matrix(y1, y2, labels=labels)``.

    >>> confusion(["pass", "pass", "fail"], ["pass", "fail", "fail"])
    {'fail': {'fail': 1, 'pass': 0}, 'pass': {'fail': 1, 'pass': 1}}
    """
    from sklearn.metrics import confusion_matrix

    pairs = encode_pairs(y1, y2, labels=labels)
    with warnings.catch_warnings():
        # sklearn asks for labels= on a 1×1 matrix; every label is passed here
        warnings.filterwarnings("ignore", "A single label was found", UserWarning)
        # The codes index pairs.labels, so the matrix's order is the labels' order.
        table = confusion_matrix(pairs.codes_1, pairs.codes_2, labels=range(pairs.k))
    return {
        row_label: {col_label: int(table[i, j]) for j, col_label in enumerate(pairs.labels)}
        for i, row_label in enumerate(pairs.labels)
    }


def disagreement_weights(k: int, weights: Weights) -> IntArray:
    """scikit-learn's disagreement weights as integers: 1 off the diagonal, |i-j| or (i-j)²."""
    order = np.arange(k, dtype=np.int64)
    difference: IntArray = order[:, None] - order[None, :]
    if weights is None:
        return np.not_equal(difference, 0).astype(np.int64)
    if weights == "linear":
        return np.abs(difference)
    if weights == "quadratic":
        return difference * difference
    raise StatisticsInputError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")


def table_kappas(tables: IntArray, disagreement: IntArray) -> FloatArray:
    """Kappa of each table in a (B, K, K) stack; nan (unwarned) where chance agreement is 1.

    kappa = 1 - n·Σ w·T / Σ w·(row ⊗ col), the disagreement form. The denominator is an
    integer, so "chance agreement is total" is detected exactly, not by a float tolerance.
    """
    n = tables.sum(axis=(1, 2))
    rows = tables.sum(axis=2)
    cols = tables.sum(axis=1)
    observed = np.einsum("bij,ij->b", tables, disagreement)
    expected = np.einsum("bi,ij,bj->b", rows, disagreement, cols)
    kappa = np.full(tables.shape[0], np.nan)
    defined = expected != 0
    kappa[defined] = 1.0 - n[defined] * observed[defined] / expected[defined]
    return kappa


def _kappa(pairs: Pairs, weights: Weights, replace_undefined_by: ReplaceUndefined) -> float:
    """scikit-learn's kappa of the encoded pairs; its undefined case kept to this contract."""
    from sklearn.metrics import cohen_kappa_score as sklearn_kappa

    disagreement_weights(pairs.k, weights)  # refuses a bad weights= in judgekit's words
    with warnings.catch_warnings():
        # sklearn warns its own UndefinedMetricWarning; judgekit warns its own instead
        warnings.simplefilter("ignore")
        value = float(
            sklearn_kappa(
                pairs.codes_1,
                pairs.codes_2,
                labels=range(pairs.k),
                weights=weights,
            )
        )
    if math.isnan(value):
        return undefined(
            "Cohen's kappa is undefined when chance agreement is total "
            "(both raters used one and the same label throughout)",
            replace_undefined_by,
        )
    return value


def cohen_kappa_score(
    y1: Sequence[Hashable],
    y2: Sequence[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
    weights: Weights = None,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> float:
    """Cohen's kappa, (p_o - p_e) / (1 - p_e): agreement beyond what the raters' label rates
    would give by chance. Same contract and values as ``sklearn.metrics.cohen_kappa_score``.

    ``weights="linear"`` or ``"quadratic"`` scores partial credit between ordered labels (the
    order of ``labels``, else sorted order). When both raters use one label throughout,
    chance agreement is 1 and kappa is nan (warned), or ``replace_undefined_by`` (not
    warned) when given; compare :func:`gwet_ac1_score`.

    >>> cohen_kappa_score(["a", "a", "b", "b"], ["a", "b", "b", "b"])
    0.5
    >>> round(cohen_kappa_score([1, 2, 3, 3], [1, 3, 3, 2], weights="quadratic"), 4)
    0.6364
    """
    pairs = encode_pairs(y1, y2, labels=labels)
    check_replacement(replace_undefined_by)
    return _kappa(pairs, weights, replace_undefined_by)


def _standard_error(table: IntArray, disagreement: IntArray) -> tuple[float, float]:
    """Kappa and its large-sample standard error (Fleiss, Cohen & Everitt 1969).

    With agreement weights a = 1 - w / max(w) (the identity when unweighted)::

        var = [Σ p_ij (a_ij - (ā_i. + ā_.j)(1 - κ))² - (κ - p_e (1 - κ))²] / (n (1 - p_e)²)

    where ā_i. = Σ_j p_.j a_ij and ā_.j = Σ_i p_i. a_ij. This is the variance statsmodels'
    ``cohens_kappa`` reports (``var_kappa``, ``std_kappa``) for simple and weighted kappa.
    """
    kappa = float(table_kappas(table[None], disagreement)[0])
    if math.isnan(kappa):
        return math.nan, math.nan
    n = float(table.sum())
    agreement = 1.0 - disagreement / disagreement.max()
    p = table / n
    p_row = p.sum(axis=1)
    p_col = p.sum(axis=0)
    p_e = float(p_row @ agreement @ p_col)
    a_row = agreement @ p_col  # ā_i.
    a_col = p_row @ agreement  # ā_.j
    spread = agreement - (a_row[:, None] + a_col[None, :]) * (1.0 - kappa)
    variance = (float((p * spread**2).sum()) - (kappa - p_e * (1.0 - kappa)) ** 2) / (
        n * (1.0 - p_e) ** 2
    )
    return kappa, math.sqrt(max(variance, 0.0))


def kappa_standard_error(
    y1: Sequence[Hashable],
    y2: Sequence[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
    weights: Weights = None,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> float:
    """The large-sample standard error of Cohen's kappa (Fleiss, Cohen & Everitt 1969).

    nan (warned) where kappa is undefined, or ``replace_undefined_by`` (not warned) when
    given. Perfect agreement gives 0: the analytic interval then has no width, however few
    the labels (use the bootstrap, or more labels).

    >>> round(kappa_standard_error(["a"] * 6 + ["b"] * 4, ["a"] * 5 + ["b"] * 5), 4)
    0.1859
    """
    pairs = encode_pairs(y1, y2, labels=labels)
    check_replacement(replace_undefined_by)
    kappa, se = _standard_error(pairs.table(), disagreement_weights(pairs.k, weights))
    if math.isnan(kappa):
        return undefined(
            "the standard error of kappa is undefined where kappa is", replace_undefined_by
        )
    return se


def _bootstrap_tables(table: IntArray, n_resamples: int, rng: np.random.Generator) -> IntArray:
    """Bootstrap resamples of the confusion table, (n_resamples, K, K).

    Resampling n pairs with replacement and counting them gives exactly a
    Multinomial(n, table / n) draw of the table, and kappa depends on the pairs only through
    the table; so the table is drawn directly, in O(n_resamples · K²) not O(n_resamples · n).
    :func:`_bootstrap_tables_by_index` is the index-resampling form it equals in distribution.
    """
    k = table.shape[0]
    n = int(table.sum())
    draws = rng.multinomial(n, table.ravel() / n, size=n_resamples)
    return draws.reshape(n_resamples, k, k).astype(np.int64)


def _bootstrap_tables_by_index(
    pairs: Pairs, n_resamples: int, rng: np.random.Generator, *, chunk_cells: int = 1 << 24
) -> IntArray:
    """Bootstrap tables by resampling pair indices: (chunk, n) int32 indices per chunk, the
    pairs encoded a·K + b, and one flat ``np.bincount`` with a K² offset per row.

    Kept as the reference (and benchmark baseline) for :func:`_bootstrap_tables`.
    """
    k, n = pairs.k, pairs.n
    cells = k * k
    dtype = np.int32 if n * cells < 2**31 else np.int64
    encoded = (pairs.codes_1 * k + pairs.codes_2).astype(dtype)
    rows = max(1, min(n_resamples, chunk_cells // n))
    out = np.empty((n_resamples, cells), dtype=np.int64)
    for start in range(0, n_resamples, rows):
        stop = min(n_resamples, start + rows)
        index = rng.integers(0, n, size=(stop - start, n), dtype=dtype)
        offsets = (np.arange(stop - start, dtype=dtype) * cells)[:, None]
        flat = np.bincount((encoded[index] + offsets).ravel(), minlength=(stop - start) * cells)
        out[start:stop] = flat.reshape(stop - start, cells)
    return out.reshape(n_resamples, k, k)


def kappa_interval(
    y1: Sequence[Hashable],
    y2: Sequence[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
    weights: Weights = None,
    confidence: float = 0.95,
    method: Literal["analytic", "bootstrap"] = "analytic",
    n_resamples: int = 2000,
    seed: int = 0,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> tuple[float, float]:
    """A confidence interval for Cohen's kappa, clipped to [-1, 1].

    ``method="analytic"``: kappa ± z · the standard error of Fleiss, Cohen & Everitt (1969)
    (:func:`kappa_standard_error`). ``method="bootstrap"``: the percentile interval of
    ``n_resamples`` bootstrap resamples of the pairs, seeded by ``seed`` (resamples whose kappa
    is undefined are left out). Undefined kappa gives ``(nan, nan)`` (warned), or both bounds
    ``replace_undefined_by`` (not warned) when given.

    >>> low, high = kappa_interval(["a"] * 6 + ["b"] * 4, ["a"] * 5 + ["b"] * 5)
    >>> round(low, 4), round(high, 4)
    (0.4356, 1.0)
    """
    z = z_value(confidence)
    pairs = encode_pairs(y1, y2, labels=labels)
    disagreement = disagreement_weights(pairs.k, weights)
    check_replacement(replace_undefined_by)
    table = pairs.table()
    if method == "analytic":
        kappa, se = _standard_error(table, disagreement)
        if math.isnan(kappa):
            bound = undefined(
                "kappa has no interval where kappa is undefined", replace_undefined_by
            )
            return bound, bound
        return max(-1.0, kappa - z * se), min(1.0, kappa + z * se)
    if method != "bootstrap":
        raise StatisticsInputError(f"method must be 'analytic' or 'bootstrap', got {method!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise StatisticsInputError(f"n_resamples must be a whole number ≥ 1, got {n_resamples!r}")
    if math.isnan(float(table_kappas(table[None], disagreement)[0])):
        bound = undefined("kappa has no interval where kappa is undefined", replace_undefined_by)
        return bound, bound
    rng = np.random.default_rng(seed)
    kappas = table_kappas(_bootstrap_tables(table, n_resamples, rng), disagreement)
    kappas = kappas[~np.isnan(kappas)]
    if kappas.size == 0:
        bound = undefined("kappa is undefined in every bootstrap resample", replace_undefined_by)
        return bound, bound
    alpha = 1.0 - confidence
    low, high = np.quantile(kappas, [alpha / 2, 1.0 - alpha / 2])
    return max(-1.0, float(low)), min(1.0, float(high))


def kappa_sample_size(
    observed_kappa: float,
    n: int,
    *,
    bar: float,
    confidence: float = 0.95,
    standard_error: float | None = None,
) -> int | None:
    """How many more labels until the lower bound of the analytic kappa interval reaches ``bar``,
    assuming the observed kappa and class balance hold (the standard error shrinks as 1/√n).

    ``standard_error`` is the analytic standard error at the ``n`` labels so far
    (:func:`kappa_standard_error`); give it whenever you have the labels. Without it the
    labels are assumed binary and balanced, where the standard error is √((1 - κ²) / n);
    with an imbalanced class that is optimistic (too few labels). ``None`` when the bar is
    unreachable (``observed_kappa <= bar``); 0 when the bound already reaches it.

    >>> kappa_sample_size(0.8, 100, bar=0.7)  # 0.8 - 1.96 · 0.6 / √139 ≥ 0.7
    39
    >>> kappa_sample_size(0.8, 100, bar=0.6)  # 0.8 - 1.96 · 0.06 = 0.68 already
    0
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise StatisticsInputError(f"n must be a whole number ≥ 1, got {n!r}")
    if not -1.0 <= observed_kappa <= 1.0:
        raise StatisticsInputError(f"observed_kappa must be in [-1, 1], got {observed_kappa!r}")
    if not -1.0 <= bar <= 1.0:
        raise StatisticsInputError(f"bar must be in [-1, 1], got {bar!r}")
    z = z_value(confidence)
    if standard_error is None:
        standard_error = math.sqrt((1.0 - observed_kappa**2) / n)
    elif not standard_error >= 0 or math.isinf(standard_error):
        raise StatisticsInputError(f"standard_error must be ≥ 0, got {standard_error!r}")
    if observed_kappa <= bar:
        return None
    per_label = standard_error * math.sqrt(n)  # se at N labels is per_label / √N

    def reaches(total: int) -> bool:
        return observed_kappa - z * per_label / math.sqrt(total) >= bar

    if reaches(n):
        return 0
    total = max(n + 1, math.ceil((z * per_label / (observed_kappa - bar)) ** 2))
    while not reaches(total):  # guard the float rounding of the closed form
        total += 1
    while total - 1 > n and reaches(total - 1):
        total -= 1
    return total - n


def gwet_ac1_score(
    y1: Sequence[Hashable], y2: Sequence[Hashable], *, labels: Sequence[Hashable] | None = None
) -> float:
    """Gwet's AC1, (p_o - p_e) / (1 - p_e) with p_e = Σ π_k (1 - π_k) / (q - 1), where π_k is
    the mean of the two raters' rates of label k and q the number of labels.

    Unlike kappa it stays near the agreement rate when one class dominates (the kappa
    paradox), and it is defined when both raters use a single label (1.0).

    >>> round(gwet_ac1_score(["a", "a", "b", "b"], ["a", "b", "b", "b"]), 4)  # 9/17
    0.5294
    >>> gwet_ac1_score(["pass"] * 3, ["pass"] * 3)
    1.0
    """
    pairs = encode_pairs(y1, y2, labels=labels)
    table = pairs.table()
    p_o = float(np.trace(table)) / pairs.n
    if pairs.k == 1:
        return 1.0  # one label: every pair agrees and no disagreement was possible
    pi = (table.sum(axis=1) + table.sum(axis=0)) / (2.0 * pairs.n)
    p_e = float((pi * (1.0 - pi)).sum()) / (pairs.k - 1)
    return (p_o - p_e) / (1.0 - p_e)  # p_e ≤ 1/q ≤ 1/2 for q ≥ 2
