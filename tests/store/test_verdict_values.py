"""A verdict's SQLite row values (:func:`judgekit.store.verdict_values.verdict_values`) are the
general path's, value for value and type for type, whatever the time's zone and the score."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from judgekit.formats.verdict import Verdict
from judgekit.store import schema
from judgekit.store.bulk import _row_values, _sqlite_converter, bulk_columns
from judgekit.store.rows import verdict_row
from judgekit.store.verdict_values import COLUMNS, verdict_values
from tests.store.factories import make_verdict

LONDON = ZoneInfo("Europe/London")
TIMES = [
    datetime(2026, 11, 29, 10, 2, 11, 123456, tzinfo=UTC),
    datetime(2026, 11, 29, 10, 2, 11, tzinfo=UTC),
    datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
    datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    datetime(999, 3, 4, 5, 6, 7, tzinfo=UTC),  # a year of three digits is written with four
    datetime(1, 1, 1, tzinfo=UTC),
    datetime(2026, 11, 29, 23, 30),  # naive: taken as UTC
    datetime(2026, 11, 29, 23, 30, 0, 5),
    datetime(2026, 11, 29, 23, 30, tzinfo=timezone(timedelta(0))),  # UTC by another object
    datetime(2026, 11, 29, 23, 30, tzinfo=timezone(timedelta(hours=2))),  # the day before
    datetime(2026, 11, 30, 0, 30, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
    datetime(2026, 1, 15, 12, 0, 1, 42, tzinfo=LONDON),  # at offset 0 in winter
    datetime(2026, 7, 15, 0, 30, tzinfo=LONDON),  # an hour ahead in summer: the day before
]
SCORES: list[Any] = [
    "pass",
    "fail",
    "A",
    "é ☃ \n",
    "",
    3,
    0,
    -2,
    2.5,
    1e300,
    float("inf"),
    float("nan"),
    True,
    False,
    None,
    [1, "x"],
    {"a": 1.5},
]


def general_values(verdict: Verdict, batch_id: int) -> tuple[Any, ...]:
    names = bulk_columns(schema.verdicts)
    assert tuple(names) == COLUMNS
    return _row_values(schema.verdicts, names, _sqlite_converter)(verdict_row(verdict, batch_id))


def same(values: tuple[Any, ...]) -> list[str]:
    """The values with their types (1 is not 1.0 nor True), NaN equal to itself."""
    return [f"{type(value).__name__}:{value!r}" for value in values]


@pytest.mark.parametrize("at", TIMES, ids=str)
def test_times_give_the_general_paths_text_and_day(at: datetime) -> None:
    verdict = make_verdict(at=at)
    assert same(verdict_values(verdict, 7)) == same(general_values(verdict, 7))


@pytest.mark.parametrize("status", ["scored", "unscored", "abstained"])
@pytest.mark.parametrize("score", SCORES, ids=repr)
def test_scores_give_the_general_paths_text_and_value(score: Any, status: str) -> None:
    verdict = make_verdict(score=score, status=status, samples=None, confidence=0.25)
    assert same(verdict_values(verdict, 3)) == same(general_values(verdict, 3))


def test_a_verdict_with_every_field_unset_gives_the_general_paths_values() -> None:
    verdict = Verdict(
        run_id="r",
        rubric_id="g",
        rubric_version="v",
        model="m",
        status="unscored",
        at=datetime(2026, 11, 29, tzinfo=UTC),
    )
    assert same(verdict_values(verdict, 1)) == same(general_values(verdict, 1))
