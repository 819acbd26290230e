"""Every statistic that gives a rate keeps it, and both bounds of its interval, in [0, 1] —
or leaves it nan with an UndefinedStatisticWarning — on any input, the adversarial ones
(all agree, all disagree, n = 1, n = 0, prevalence 0 or 1, tiny and huge n) given as
explicit examples; a difference of rates stays in [-1, 1]."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from hypothesis import example, given, settings
from hypothesis import strategies as st

from judgekit.stats import (
    UndefinedStatisticWarning,
    judge_error_rates,
    pass_at_k,
    pass_hat_k,
    per_class_scores,
    percent_agreement,
    ppi_rate_interval,
    rogan_gladen,
    two_proportion_test,
    wilson_interval,
)
from judgekit.stats.bounded import clip_rate, clip_rate_interval
from judgekit.stats.proportion_difference import proportion_difference
from judgekit.stats.selective import (
    binomial_cdf,
    binomial_sf,
    clopper_pearson_upper,
    coverage_curve,
    fixed_sequence_threshold,
)

HUGE = 10**5
# A count: none, one, a few, a hundred or so, or many (n up to a few hundred thousand).
COUNTS = st.one_of(
    st.just(0), st.just(1), st.integers(0, 5), st.integers(0, 300), st.integers(HUGE // 2, HUGE)
)
SMALL_COUNTS = st.one_of(st.just(0), st.just(1), st.integers(0, 5), st.integers(0, 60))
SHARES = st.one_of(st.sampled_from([0.0, 1e-12, 0.5, 1 - 1e-12, 1.0]), st.floats(0.0, 1.0))
OPEN_SHARES = st.one_of(st.sampled_from([1e-9, 0.05, 0.5, 0.95]), st.floats(0.001, 0.999))
LEVELS = st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99, 0.999999])
# (n, successes): none, all, one, half, or any of them.
TALLIES = COUNTS.flatmap(
    lambda n: st.tuples(st.just(n), st.sampled_from([0, n, min(1, n), n // 2]) | st.integers(0, n))
)


@contextmanager
def undefined_warnings() -> Iterator[list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def assert_in(
    figures: Mapping[str, float],
    caught: list[warnings.WarningMessage],
    *,
    low: float = 0.0,
    high: float = 1.0,
) -> None:
    """Each figure in [low, high], or nan with the documented warning."""
    warned = any(issubclass(w.category, UndefinedStatisticWarning) for w in caught)
    for name, value in figures.items():
        if math.isnan(value):
            assert warned, f"{name} is nan with no UndefinedStatisticWarning"
        else:
            assert low <= value <= high, f"{name} = {value!r} is outside [{low}, {high}]"


def assert_inside(estimate: float, low: float, high: float) -> None:
    """The estimate lies in its own interval (where all three are defined)."""
    if not any(math.isnan(v) for v in (estimate, low, high)):
        assert low - 1e-12 <= estimate <= high + 1e-12, (estimate, low, high)


def labels(tp: int, fp: int, fn: int, tn: int) -> tuple[list[str], list[str]]:
    """Human and judge labels with these counts of (human, judge) = (pass, pass), (fail,
    pass), (pass, fail) and (fail, fail)."""
    human = ["pass"] * tp + ["fail"] * fp + ["pass"] * fn + ["fail"] * tn
    judge = ["pass"] * (tp + fp) + ["fail"] * (fn + tn)
    return human, judge


@settings(max_examples=300, deadline=None)
@given(TALLIES, LEVELS)
@example((0, 0), 0.95)  # n = 0
@example((1, 1), 0.95)  # n = 1
@example((HUGE, HUGE), 0.999999)  # all pass, huge n
@example((HUGE, 1), 0.5)
def test_wilson_interval(tally: tuple[int, int], level: float) -> None:
    n, successes = tally
    with undefined_warnings() as caught:
        low, high = wilson_interval(successes, n, confidence=level)
    assert_in({"low": low, "high": high}, caught)
    if n:
        assert_inside(successes / n, low, high)


@settings(max_examples=300, deadline=None)
@given(TALLIES, st.integers(1, 20))
@example((0, 0), 1)
@example((1, 1), 1)
@example((3, 3), 5)  # k > n: undefined
def test_pass_at_k_and_pass_hat_k(tally: tuple[int, int], k: int) -> None:
    n, passed = tally
    with undefined_warnings() as caught:
        figures = {"pass@k": pass_at_k(n, passed, k), "pass^k": pass_hat_k(n, passed, k)}
    assert_in(figures, caught)


CONFUSIONS = st.tuples(SMALL_COUNTS, SMALL_COUNTS, SMALL_COUNTS, SMALL_COUNTS).filter(any)
ADVERSARIAL_CONFUSIONS = [
    (5, 0, 0, 5),  # all agree
    (0, 5, 5, 0),  # all disagree
    (1, 0, 0, 0),  # n = 1
    (0, 1, 0, 0),
    (0, 0, 0, 1),
    (7, 0, 3, 0),  # prevalence 1: humans pass everything
    (0, 4, 0, 6),  # prevalence 0
    (HUGE, 1, 0, HUGE),  # huge n, nearly perfect
]


def _with_examples(
    cases: list[tuple[int, int, int, int]],
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def decorate(test: Callable[..., None]) -> Callable[..., None]:
        for case in cases:
            test = example(case)(test)
        return test

    return decorate


@settings(max_examples=200, deadline=None)
@given(CONFUSIONS)
@_with_examples(ADVERSARIAL_CONFUSIONS)
def test_judge_error_rates_and_agreement(confusion: tuple[int, int, int, int]) -> None:
    human, judge = labels(*confusion)
    with undefined_warnings() as caught:
        rates = judge_error_rates(human, judge, pos_label="pass")
        agreement = percent_agreement(human, judge)
    figures = {"agreement": agreement, "f1": rates.f1}
    for name in ("sensitivity", "specificity", "false_pass_rate", "false_fail_rate", "precision"):
        rate = getattr(rates, name)
        figures |= {name: rate.estimate, f"{name} low": rate.low, f"{name} high": rate.high}
        assert_inside(rate.estimate, rate.low, rate.high)
    assert_in(figures, caught)


@settings(max_examples=100, deadline=None)
@given(CONFUSIONS)
@_with_examples(ADVERSARIAL_CONFUSIONS[:7])
def test_per_class_scores(confusion: tuple[int, int, int, int]) -> None:
    human, judge = labels(*confusion)
    with undefined_warnings() as caught:
        scores = per_class_scores(human, judge, labels=["pass", "fail"])
    figures = {"macro precision": scores.macro_precision, "macro f1": scores.macro_f1}
    for name, c in scores.classes.items():
        figures |= {
            f"{name} precision": c.precision,
            f"{name} recall": c.recall,
            f"{name} f1": c.f1,
        }
    assert_in(figures, caught)


# (labelled confusion, unlabelled passes, unlabelled runs): the judge's verdicts on the
# labelled runs and on the others, as PPI takes them.
PPI_CASES = st.tuples(CONFUSIONS, COUNTS).flatmap(
    lambda case: st.tuples(st.just(case[0]), st.integers(0, case[1]), st.just(case[1]))
)


@settings(max_examples=300, deadline=None)
@given(PPI_CASES, st.booleans(), LEVELS)
@example(((0, 0, 2, 0), 2, 2), False, 0.95)  # judge fails both human passes, passes the rest
@example(((0, 0, 5, 3), 5, 7), False, 0.95)  # 0.964 [0.481, 1.448] unclipped
@example(((0, 5, 0, 0), 0, 5), True, 0.95)  # judge passes all human fails, fails the rest
@example(((1, 0, 0, 0), 1, 1), False, 0.95)  # n = 1
@example(((3, 0, 0, 3), 0, 0), False, 0.95)  # nothing unlabelled
@example(((HUGE, 0, 0, 0), HUGE, HUGE), True, 0.999999)  # all agree, huge n
@example(((0, 0, 0, HUGE), 0, HUGE), False, 0.95)  # prevalence 0, huge n
def test_ppi_rate_interval(
    case: tuple[tuple[int, int, int, int], int, int], tuned: bool, level: float
) -> None:
    confusion, unlabelled_passes, unlabelled = case
    human, judge = labels(*confusion)
    y = [float(h == "pass") for h in human]
    f = [float(j == "pass") for j in judge]
    others = [1.0] * unlabelled_passes + [0.0] * (unlabelled - unlabelled_passes)
    if not others:
        return  # refused: PPI needs verdicts on other items (tests/stats/test_contract.py)
    with undefined_warnings() as caught:
        rate = ppi_rate_interval(y, f, others, confidence=level, tuned=tuned)
    assert_in({"estimate": rate.estimate, "low": rate.low, "high": rate.high}, caught)
    assert_inside(rate.estimate, rate.low, rate.high)


@settings(max_examples=300, deadline=None)
@given(SHARES, SHARES, SHARES)
@example(0.05, 0.9, 0.8)  # below the false-pass floor
@example(0.99, 0.9, 0.8)  # above the sensitivity
@example(0.5, 0.5, 0.5)  # no better than chance: undefined
@example(1.0, 1.0, 0.0)
def test_rogan_gladen(observed: float, sensitivity: float, specificity: float) -> None:
    with undefined_warnings() as caught:
        corrected = rogan_gladen(observed, sensitivity, specificity)
        unclipped = rogan_gladen(observed, sensitivity, specificity, clip=False)
    assert_in({"corrected": corrected}, caught)
    value, clipped = clip_rate(unclipped)
    assert_in({"clipped": value}, caught)
    if not math.isnan(corrected):
        assert (value, clipped) == (corrected, corrected != unclipped)


@settings(max_examples=200, deadline=None)
@given(st.floats(-3, 3), st.floats(-3, 3), st.floats(0, 3))
def test_clip_rate_interval(estimate: float, low: float, width: float) -> None:
    high = low + width
    if low > 1 or high < 0:
        return  # refused: an interval wholly outside [0, 1]
    bounded = clip_rate_interval(estimate, low, high)
    assert_in({"estimate": bounded.estimate, "low": bounded.low, "high": bounded.high}, [])
    assert bounded.clipped == (not (0 <= estimate <= 1 and low >= 0 and high <= 1))


@settings(max_examples=200, deadline=None)
@given(
    SMALL_COUNTS.flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))), OPEN_SHARES, SHARES
)
@example((0, 0), 0.05, 0.5)
@example((5, 5), 0.05, 1.0)
@example((5, 0), 1e-9, 0.0)
def test_binomial_tails_and_clopper_pearson(tally: tuple[int, int], delta: float, p: float) -> None:
    n, k = tally
    figures = {
        "cdf": binomial_cdf(k, n, p),
        "sf": binomial_sf(k, n, p),
        "upper": clopper_pearson_upper(k, n, delta=delta),
    }
    assert_in(figures, [])


VERDICTS = st.lists(st.tuples(st.one_of(st.none(), SHARES), st.booleans()), min_size=0, max_size=80)


@settings(max_examples=200, deadline=None)
@given(VERDICTS, OPEN_SHARES, OPEN_SHARES)
@example([], 0.1, 0.1)  # n = 0
@example([(0.9, True)], 0.1, 0.1)  # n = 1
@example([(1.0, True)] * 80, 0.05, 0.05)  # all agree
@example([(1.0, False)] * 80, 0.05, 0.05)  # all disagree
@example([(None, True)] * 10, 0.05, 0.05)  # no confidence known
def test_selective_guarantee(
    verdicts: list[tuple[float | None, bool]], alpha: float, delta: float
) -> None:
    confidences = [c for c, _ in verdicts]
    correct = [right for _, right in verdicts]
    chosen = fixed_sequence_threshold(confidences, correct, alpha=alpha, delta=delta)
    figures = {"coverage": chosen.coverage}
    for name in ("agreement_on_kept", "guaranteed_agreement"):
        value = getattr(chosen, name)
        figures |= {} if value is None else {name: value}
    for i, step in enumerate(chosen.steps):
        figures |= {f"step {i} risk_upper": step.risk_upper, f"step {i} p": step.p_value}
    for i, point in enumerate(coverage_curve(confidences, correct, delta=delta)):
        figures |= {f"point {i} coverage": point.coverage, f"point {i}": point.guaranteed_agreement}
    assert_in(figures, [])


@settings(max_examples=300, deadline=None)
@given(TALLIES, TALLIES, LEVELS)
@example((1, 1), (1, 0), 0.95)  # n = 1 each, all disagree
@example((0, 0), (5, 5), 0.95)  # a side with no trials
@example((HUGE, HUGE), (HUGE, 0), 0.999999)
def test_two_proportions_and_their_difference(
    first: tuple[int, int], second: tuple[int, int], level: float
) -> None:
    (n_1, s_1), (n_2, s_2) = first, second
    with undefined_warnings() as caught:
        test = two_proportion_test(s_1, n_1, s_2, n_2)
        difference = proportion_difference(s_1, n_1, s_2, n_2, confidence=level)
    assert_in(
        {
            "p1": test.p1,
            "p2": test.p2,
            "p": test.p_value,
            "p smaller": test.p_value_smaller,
            "p larger": test.p_value_larger,
        },
        caught,
    )
    bounds = {"difference": difference.difference, "low": difference.low, "high": difference.high}
    assert_in(bounds, caught, low=-1.0)
    assert_inside(difference.difference, difference.low, difference.high)
