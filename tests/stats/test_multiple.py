"""Holm's step-down procedure: which hypotheses a family of p-values rejects."""

from __future__ import annotations

import pytest

from judgekit.errors import JudgekitError
from judgekit.stats import holm_rejections


def test_each_p_value_is_held_to_a_step_of_alpha() -> None:
    # Sorted: 0.001 < 0.05/4, 0.015 < 0.05/3 (Bonferroni's 0.05/4 would keep it), 0.024 <
    # 0.05/2, 0.06 ≥ 0.05/1.
    p_values = {"a": 0.015, "b": 0.024, "c": 0.06, "d": 0.001}
    assert holm_rejections(p_values, alpha=0.05) == {"a", "b", "d"}


def test_the_first_p_value_not_rejected_stops_the_procedure() -> None:
    # 0.04 would pass its own step (0.05/1) but comes after 0.03 ≥ 0.05/2.
    assert holm_rejections({"a": 0.01, "b": 0.03, "c": 0.04}, alpha=0.05) == {"a"}


def test_one_hypothesis_is_the_plain_test() -> None:
    assert holm_rejections({"only": 0.049}, alpha=0.05) == {"only"}
    assert holm_rejections({"only": 0.05}, alpha=0.05) == set()


def test_no_hypotheses_reject_nothing() -> None:
    assert holm_rejections({}, alpha=0.05) == set()


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, float("nan")])
def test_an_alpha_outside_zero_one_is_refused(alpha: float) -> None:
    with pytest.raises(ValueError, match="alpha must be between 0 and 1") as raised:
        holm_rejections({"a": 0.01}, alpha=alpha)
    assert isinstance(raised.value, JudgekitError)
