"""A window's mean point: its spread from the window's sums, checked against numpy."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from judgekit._util.number_format import half_width
from judgekit.monitoring.points import mean_point

AT = datetime(2026, 11, 1, tzinfo=UTC)


def _point(values: list[float]):  # type: ignore[no-untyped-def]
    return mean_point("2026-11-01", AT, len(values), sum(values), sum(v * v for v in values))


@pytest.mark.parametrize("value", [0.0012345, 0.1, 3.0, 1234.5678])
def test_a_constant_has_no_spread_not_the_sums_rounding(value: float) -> None:
    point = _point([value] * 720)
    assert point.sd == 0.0
    assert point.low == point.high == point.value == pytest.approx(value, rel=1e-12)
    assert half_width(0.0) == "±0"


@pytest.mark.parametrize("relative_spread", [1e-5, 1e-3, 0.5])
def test_a_real_spread_matches_numpy(relative_spread: float) -> None:
    rng = np.random.default_rng(7)
    values = list(0.0012 * (1 + relative_spread * rng.standard_normal(720)))
    point = _point(values)
    assert point.sd == pytest.approx(float(np.std(values, ddof=1)), rel=1e-2)
    half = 1.959963984540054 * float(np.std(values, ddof=1)) / np.sqrt(720)
    assert point.high - point.value == pytest.approx(half, rel=1e-2)


def test_one_value_has_no_interval() -> None:
    point = _point([0.5])
    assert (point.n, point.value, point.low, point.high) == (1, 0.5, None, None)
