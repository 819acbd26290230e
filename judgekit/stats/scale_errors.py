"""How far a judge's scores are from the humans' on Likert and choice scales.

- :func:`likert_errors`: the mean absolute error (judge − human, absolute) and the mean
  signed error (positive: the judge scores higher than people), each with a Student-t
  interval on the per-run errors (mean ± t·s/√n, n − 1 degrees of freedom — the interval
  statsmodels' ``DescrStatsW.tconfint_mean`` gives). The t quantile is computed here, from
  the regularised incomplete beta function, so judging needs no scipy.
- :func:`per_class_scores`: each class's precision, recall and F1 with the human label as
  the truth, and their macro averages (unweighted means over the classes), computed by
  ``sklearn.metrics.precision_recall_fscore_support`` (imported when called): a class the judge never
  chose has an undefined precision, one humans never chose an undefined recall; undefined is
  nan with a warning unless ``replace_undefined_by=`` says otherwise (scikit-learn's
  ``zero_division``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from judgekit.stats._contract import (
    ReplaceUndefined,
    StatisticsInputError,
    check_replacement,
    check_same_length,
    undefined,
)

__all__ = [
    "ClassScores",
    "LikertErrors",
    "MeanWithInterval",
    "PerClassScores",
    "likert_errors",
    "per_class_scores",
    "t_quantile",
]


@dataclass(frozen=True)
class MeanWithInterval:
    """A mean and its two-sided t interval (nan where undefined)."""

    mean: float
    low: float
    high: float


@dataclass(frozen=True)
class LikertErrors:
    """The judge's mean absolute and mean signed error against the humans, over ``n`` runs."""

    n: int
    mean_absolute_error: MeanWithInterval
    mean_signed_error: MeanWithInterval


@dataclass(frozen=True)
class ClassScores:
    """One class's precision, recall and F1, and how many runs humans put in it."""

    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class PerClassScores:
    """Per-class scores in the order of ``labels``, and their macro averages."""

    classes: dict[Hashable, ClassScores]
    macro_precision: float
    macro_recall: float
    macro_f1: float


def _regularised_beta(x: float, a: float, b: float, *, rest: float) -> float:
    """I_x(a, b) by its continued fraction (modified Lentz), accurate to ~1e-15; ``rest``
    is 1 − x, given by the caller so that no precision is lost forming it."""
    if x <= 0.0:
        return 0.0
    if rest <= 0.0:
        return 1.0
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast only below this point
        return 1.0 - _regularised_beta(rest, b, a, rest=x)
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(log_front + a * math.log(x) + b * math.log(rest)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return front * result


def _t_cdf(t: float, df: float) -> float:
    square = t * t
    # P(|T| > |t|) = I_{df/(df+t²)}(df/2, 1/2); both arguments formed without cancellation
    tail = 0.5 * _regularised_beta(df / (df + square), df / 2, 0.5, rest=square / (df + square))
    return 1.0 - tail if t > 0 else tail


def t_quantile(probability: float, df: float) -> float:
    """The ``probability`` quantile of Student's t with ``df`` degrees of freedom
    (bisection on the CDF; equals ``scipy.stats.t.ppf`` to ~1e-12)."""
    if not 0 < probability < 1 or not df > 0:
        raise StatisticsInputError(
            f"need 0 < probability < 1 and df > 0, got probability={probability!r}, df={df!r}"
        )
    low, high = -1.0, 1.0
    while _t_cdf(low, df) > probability:
        low *= 2
    while _t_cdf(high, df) < probability:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if _t_cdf(middle, df) < probability:
            low = middle
        else:
            high = middle
        if high - low < 1e-13 * max(1.0, abs(middle)):
            break
    return (low + high) / 2


class _Undefined:
    """The undefined figures of one call, warned about once, naming every one, and replaced
    by ``replace_undefined_by`` when it is a number."""

    def __init__(self, replace_undefined_by: ReplaceUndefined) -> None:
        self.replace = replace_undefined_by
        self.reasons: list[str] = []

    def value(self, reason: str) -> float:
        if reason not in self.reasons:
            self.reasons.append(reason)
        return math.nan if isinstance(self.replace, str) else float(self.replace)

    def settle(self) -> None:
        if self.reasons and isinstance(self.replace, str):
            undefined("; ".join(self.reasons), self.replace)


def _mean_interval(
    values: Sequence[float], confidence: float, found: _Undefined, what: str
) -> MeanWithInterval:
    n = len(values)
    if n == 0:
        nan = found.value(f"the {what} is undefined without runs")
        return MeanWithInterval(nan, nan, nan)
    mean = math.fsum(values) / n
    if n == 1:
        nan = found.value(f"the {what}'s interval needs at least two runs")
        return MeanWithInterval(mean, nan, nan)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(1 - (1 - confidence) / 2, n - 1) * math.sqrt(variance / n)
    return MeanWithInterval(mean, mean - half, mean + half)


def likert_errors(
    human: Sequence[float],
    judged: Sequence[float],
    *,
    confidence: float = 0.95,
    replace_undefined_by: ReplaceUndefined = "warn",
) -> LikertErrors:
    """The mean absolute and mean signed error (judge − human) with t intervals.

    >>> errors = likert_errors([1, 2, 3, 4], [2, 2, 5, 4])
    >>> errors.mean_absolute_error.mean, errors.mean_signed_error.mean
    (0.75, 0.75)
    """
    check_same_length("human", human, "judged", judged)
    check_replacement(replace_undefined_by)
    if not 0 < confidence < 1:
        raise StatisticsInputError(f"confidence must be between 0 and 1, got {confidence!r}")
    for value in (*human, *judged):
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            raise StatisticsInputError(f"Likert scores must be numbers, got {value!r}")
    signed = [float(j) - float(h) for h, j in zip(human, judged, strict=True)]
    found = _Undefined(replace_undefined_by)
    errors = LikertErrors(
        n=len(signed),
        mean_absolute_error=_mean_interval(
            [abs(e) for e in signed], confidence, found, "mean absolute error"
        ),
        mean_signed_error=_mean_interval(signed, confidence, found, "mean signed error"),
    )
    found.settle()
    return errors


def per_class_scores(
    human: Sequence[Hashable],
    judged: Sequence[Hashable],
    *,
    labels: Sequence[Hashable],
    replace_undefined_by: ReplaceUndefined = "warn",
) -> PerClassScores:
    """Precision, recall and F1 of each class in ``labels`` (human = truth), and their
    macro averages over the classes where each is defined; a pair with a score outside
    ``labels`` still counts against the class it was not (as scikit-learn counts it)."""
    check_same_length("human", human, "judged", judged)
    check_replacement(replace_undefined_by)
    if not labels:
        raise StatisticsInputError("labels must name at least one class")
    from sklearn.metrics import precision_recall_fscore_support

    index = {label: i for i, label in enumerate(labels)}
    # Encoded as indices into labels (-1 for a score outside them), so that labels of any
    # hashable kind reach scikit-learn as one integer type.
    truth = [index.get(h, -1) for h in human]
    chosen = [index.get(j, -1) for j in judged]
    precision, recall, f1, support = precision_recall_fscore_support(
        truth, chosen, labels=range(len(labels)), average=None, zero_division=math.nan
    )
    found = _Undefined(replace_undefined_by)
    classes: dict[Hashable, ClassScores] = {}
    for i, label in enumerate(labels):
        classes[label] = ClassScores(
            _or_undefined(
                precision[i],
                found,
                f"precision of {label!r} is undefined: never chosen by the judge",
            ),
            _or_undefined(
                recall[i], found, f"recall of {label!r} is undefined: no human label in this class"
            ),
            _or_undefined(f1[i], found, f"F1 of {label!r} is undefined: the class never occurs"),
            int(support[i]),
        )
    found.settle()
    scores = list(classes.values())
    return PerClassScores(
        classes=classes,
        macro_precision=_macro([c.precision for c in scores]),
        macro_recall=_macro([c.recall for c in scores]),
        macro_f1=_macro([c.f1 for c in scores]),
    )


def _or_undefined(value: float, found: _Undefined, reason: str) -> float:
    """scikit-learn's figure, or (where it is nan: zero_division) judgekit's undefined value."""
    return found.value(reason) if math.isnan(value) else float(value)


def _macro(values: list[float]) -> float:
    """The mean over the classes where the score is defined (scikit-learn leaves an undefined
    class out of the macro average; a replaced one counts at its replacement)."""
    defined = [v for v in values if not math.isnan(v)]
    return math.fsum(defined) / len(defined) if defined else math.nan
