"""A SQLite call that only inserts adds the daily totals it counted as it wrote the rows; the
totals are then exactly those the fold over the new rows gives (values and SQL types), and
every other call (a replaced verdict, a key in two chunks, a fractional score, verdicts
another writer did not fold in) still folds."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from judgekit.formats.verdict import Verdict
from judgekit.store import open_store, schema, sqlite_verdicts
from judgekit.store.bulk import _row_values, _sqlite_converter, bulk_columns
from judgekit.store.day_totals import counted_totals
from judgekit.store.rows import verdict_row
from tests.store.factories import make_verdict

START = datetime(2026, 11, 1, 22, 0, tzinfo=UTC)
KEY = "rubric_id, rubric_version, model, day, batch_id"
TOTALS = (
    "SELECT *, typeof(verdicts), typeof(scores), typeof(score_sum), typeof(score_squares), "
    f"typeof(inexact), typeof(judged), typeof(kept) FROM verdict_day_totals ORDER BY {KEY}"
)


def verdict(i: int, **changes: Any) -> Verdict:
    """Verdict ``i``: pass/fail, a Likert point, no score, unscored or abstained; by one
    of two models; over three days."""
    kind = i % 6
    fields: dict[str, Any] = {
        "rubric_id": "goal" if kind < 3 else "likert",
        "model": "m/a" if i % 4 < 2 else "m/b",
        "score": ("pass" if i % 7 else "fail") if kind < 3 else [i % 5 - 2, None, 3][kind - 3],
        "status": "unscored" if i % 11 == 0 else "abstained" if i % 13 == 0 else "scored",
        "samples": None,
        "at": START + timedelta(minutes=3 * i),
    }
    return make_verdict(f"shop/task{i % 9}/{i}", **(fields | changes))


def unfolded_rows(path: Path, rows: list[Verdict], batch: int) -> None:
    """Another writer's verdicts, inserted without folding them in."""
    names = bulk_columns(schema.verdicts)
    values = _row_values(schema.verdicts, names, _sqlite_converter)
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.executemany(
            f"INSERT INTO verdicts ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
            [values(verdict_row(v, batch)) for v in rows],
        )


def record_all(path: Path) -> tuple[list[Any], list[Any]]:
    """The calls, then the totals and the verdicts as stored."""
    with open_store(f"sqlite:///{path}") as store:
        first, second = store.new_batch(), store.new_batch()
        store.record_verdicts([verdict(i) for i in range(1_300)], first)  # counted
        store.record_verdicts([verdict(i) for i in range(0, 600, 2)], second)  # counted
        store.record_verdicts([], first)
        # A key in two chunks: the second replaces the first, inserted by this very call.
        store.record_verdicts([verdict(i) for i in range(2_000, 2_600)] + [verdict(2_000)], first)
        store.record_verdicts([verdict(i, score="fail") for i in range(0, 1_300, 5)], first)
        # Repeats in one chunk only: still counted.
        store.record_verdicts([verdict(i) for i in range(3_000, 3_100)] * 2, first)
        store.record_verdicts([verdict(4_000, score=0.5), verdict(4_001, score=4)], first)
        store.record_verdicts([verdict(4_002, score=2_000), verdict(4_003, score=-7)], first)
        unfolded_rows(path, [verdict(i) for i in range(5_000, 5_050)], second)
        store.record_verdicts([verdict(i) for i in range(5_050, 5_100)], second)
        store.record_verdicts([verdict(i) for i in range(5_100, 5_200)], second)  # counted
    with closing(sqlite3.connect(path)) as connection:
        return (
            connection.execute(TOTALS).fetchall(),
            connection.execute("SELECT * FROM verdicts ORDER BY id").fetchall(),
        )


def test_counted_totals_are_the_folds_type_for_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted: list[bool] = []

    def spied(counts: Any, batch_id: int) -> Any:
        totals = counted_totals(counts, batch_id)
        counted.append(totals is not None)
        return totals

    monkeypatch.setattr(sqlite_verdicts, "counted_totals", spied)
    fast = record_all(tmp_path / "counted.sqlite")
    # counted_totals is asked only when the call only inserted, after the mark.
    assert counted == [True, True, True, True, False, False, True]
    never: Callable[..., None] = lambda counts, batch_id: None  # noqa: E731
    monkeypatch.setattr(sqlite_verdicts, "counted_totals", never)
    folded = record_all(tmp_path / "folded.sqlite")
    assert fast == folded
    totals, verdicts = fast
    assert sum(row[5] for row in totals) == len(verdicts) == 1_300 + 300 + 600 + 100 + 4 + 200
    assert {row[-5:-3] for row in totals} == {("real", "real")}


def test_counts_of_values_whose_sums_may_not_be_exact_are_left_to_the_fold() -> None:
    key = ("r", "v", "m", "2026-11-01")
    assert counted_totals({(*key, "scored", 1000.0): 3, (*key, "unscored", None): 1}, 4) == [
        (*key, 4, 4, 3, 3000.0, 3_000_000.0, 0, 3, 3)
    ]
    for value in (0.5, 1000.5, -1001.0, float("nan"), float("inf"), 1, True):
        assert counted_totals({(*key, "scored", value): 1}, 4) is None
