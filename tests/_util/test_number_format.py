"""Printed numbers: one style per kind, the same in every command."""

from __future__ import annotations

import math

import pytest

from judgekit._util.number_format import (
    alert_value,
    axis_dollars,
    bracketed_interval,
    confidence,
    cost,
    dollars,
    duration,
    half_width,
    interval,
    mean_count,
    monitor_mean,
    p_equation,
    p_value,
    percent,
    rate,
    relative_change,
    setting,
    significant,
    statistic,
    statistic_interval,
    threshold,
    whole,
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


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.51234, "0.512"),
        (0.0, "0.000"),
        (1.0, "1.000"),
        (-0.2, "-0.200"),
        (0.9995, "1.000"),
        (math.nan, "undefined"),
        (None, "undefined"),
    ],
)
def test_statistics_print_with_three_decimals(value: float | None, text: str) -> None:
    assert statistic(value) == text


def test_a_statistic_can_print_a_dash_where_a_table_shows_one() -> None:
    assert statistic(None, undefined="—") == "—"
    assert statistic(0.25, undefined="—") == "0.250"


def test_intervals_of_statistics_have_two_styles() -> None:
    assert bracketed_interval(0.7354, 0.9651) == "[0.735, 0.965]"
    assert bracketed_interval(-0.1, 1.0) == "[-0.100, 1.000]"
    assert bracketed_interval(0.5412, 0.6733, decimals=2) == "[0.54, 0.67]"
    assert bracketed_interval(None, 0.5) == "[undefined]"
    assert bracketed_interval(0.5, math.nan) == "[undefined]"
    assert statistic_interval(0.7354, 0.9651) == "0.735–0.965"
    assert statistic_interval(-0.1, 0.0) == "-0.100–0.000"
    assert statistic_interval(None, 0.5) == "—"


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (0.45, 1, "45.0%"),
        (0.0, 1, "0.0%"),
        (1.0, 1, "100.0%"),
        (1 / 3, 0, "33%"),
        (0.9975, 2, "99.75%"),
        (None, 1, "—"),
        (math.nan, 0, "—"),
    ],
)
def test_percentages_print_with_the_decimals_asked(
    value: float | None, decimals: int, text: str
) -> None:
    assert percent(value, decimals=decimals) == text


def test_percentages_and_confidence_levels() -> None:
    assert percent(None, undefined="undefined") == "undefined"
    assert [confidence(c) for c in (0.95, 0.9, 0.0, 1.0)] == ["95%", "90%", "0%", "100%"]


def test_money_prints_with_four_decimals_and_four_digits_on_an_axis() -> None:
    assert [cost(v) for v in (0.01234, 0.0, 1.5, None)] == ["0.0123", "0.0000", "1.5000", "—"]
    assert [dollars(v) for v in (0.01234, 0.0, 12.5)] == ["$0.0123", "$0.0000", "$12.5000"]
    assert [axis_dollars(v) for v in (0.01234, 0.0, 12.5)] == ["$0.01234", "$0", "$12.5"]
    assert axis_dollars(0.5, 3) == "$0.5"  # a matplotlib tick formatter's (value, position)


def test_means_and_counts() -> None:
    assert [mean_count(v) for v in (3.46, 0.0, 1.0, None)] == ["3.5", "0.0", "1.0", "—"]
    assert mean_count(0.4, decimals=2) == "0.40"
    assert [whole(v) for v in (4.0, 0.0, 2.6, None)] == ["4", "0", "3", "—"]
    assert [monitor_mean(v) for v in (12.3456, 0.0012345, 0.0, 1.0, -3.5, None)] == [
        "12.35",
        "0.001234",
        "0",
        "1",
        "-3.5",
        "—",
    ]
    assert [half_width(v) for v in (0.1234, 0.0, 1.0)] == ["±0.12", "±0", "±1"]


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.6, "0.6"), (50.0, "50"), (0.1234, "0.123"), (-1e-9, "0"), (0.0, "0"), (-0.25, "-0.25")],
)
def test_thresholds_drop_trailing_zeros_and_never_read_minus_zero(value: float, text: str) -> None:
    assert threshold(value) == text


def test_values_in_sentences() -> None:
    assert [significant(v) for v in (0.08812, 50.0, 0.0, -0.1234, None)] == [
        "0.0881",
        "50",
        "0",
        "-0.123",
        "undefined",
    ]
    assert [alert_value(v) for v in (12.345, 1.0, 0.0, 0.5, 0.01234, -0.25)] == [
        "12.3",
        "1",
        "0",
        "0.500",
        "0.012",
        "-0.250",
    ]


def test_settings_print_as_given_and_durations_in_seconds() -> None:
    assert [setting(v) for v in (0.05, 30.0, 0.0, 1.0, -1.5)] == ["0.05", "30", "0", "1", "-1.5"]
    assert [duration(v) for v in (12.345, 0.0, 1.0)] == ["12.3 s", "0.0 s", "1.0 s"]
