"""Printed numbers: one style per kind, the same in every command."""

from __future__ import annotations

import math

import pytest

from judgekit._util.number_format import (
    interval,
    p_equation,
    p_value,
    rate,
    relative_change,
)


@pytest.mark.parametrize(
    ("p", "cell", "sentence"),
    [
        (1.0, "1.000", "p = 1.000"),
        (0.5, "0.500", "p = 0.500"),
        (0.815, "0.815", "p = 0.815"),
        (0.0456, "0.046", "p = 0.046"),
        (0.00101, "0.001", "p = 0.001"),
        (0.0009996, "0.001", "p = 0.001"),  # three decimals round up: not 0.0010
        (0.00042, "0.0004", "p = 0.0004"),
        (0.0001, "0.0001", "p = 0.0001"),
        (0.0000999, "<0.0001", "p < 0.0001"),
        (3.37e-10, "<0.0001", "p < 0.0001"),
        (0.0, "<0.0001", "p < 0.0001"),
        (math.nan, "—", "p = —"),
        (None, "—", "p = —"),
    ],
)
def test_p_values_print_with_three_decimals_down_to_a_floor(
    p: float | None, cell: str, sentence: str
) -> None:
    assert p_value(p) == cell
    assert p_equation(p) == sentence


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.0, "0.00"), (1.0, "1.00"), (0.705, "0.70"), (2 / 3, "0.67"), (math.nan, "—"), (None, "—")],
)
def test_rates_print_with_two_decimals(value: float | None, text: str) -> None:
    assert rate(value) == text


def test_intervals_join_two_rates_with_an_en_dash() -> None:
    assert interval(0.0, 1.0) == "0.00–1.00"
    assert interval(0.5412, 0.6733) == "0.54–0.67"
    assert interval(None, 0.3) == "—"
    assert interval(0.1, math.nan) == "—"


@pytest.mark.parametrize(
    ("change", "text"),
    [
        (0.0, "+0%"),
        (1.25, "+125%"),
        (-0.034, "-3%"),
        (-1.0, "-100%"),
        (math.inf, "from 0"),
        (math.nan, "—"),
        (None, "—"),
    ],
)
def test_relative_changes_print_as_signed_whole_percents(change: float | None, text: str) -> None:
    assert relative_change(change) == text
