"""Folding new verdicts into ``verdict_day_totals`` on SQLite, through the sqlite3 driver
alone (no SQLAlchemy: any SQLite writer of verdicts can call it, in its own transaction).

PostgreSQL's triggers count every verdict as it is written; SQLite has no statement
triggers, and a row trigger on INSERT would cost a third of the recording speed, so a
writer folds in the verdicts past the mark after each chunk it inserts: one aggregate over
the rows just written, read by their ids. See :mod:`judgekit.store.migration_day_totals`.
A writer that only inserted, right after the mark, may instead add what it counted while
writing (:func:`counted_totals`), where that is exactly what the fold would add.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

_KEY: Final = "rubric_id, rubric_version, model, day, batch_id"
_COLUMNS: Final = ("verdicts", "scores", "score_sum", "score_squares", "inexact", "judged", "kept")
_FOLDED: Final = "(SELECT verdict_id FROM verdict_day_totals_mark)"
# Whole numbers this small keep every sum of squares exact in a double.
_EXACT: Final = "(score_value = round(score_value) AND abs(score_value) <= 1000)"

_INSERT: Final = f"INSERT INTO verdict_day_totals ({_KEY}, {', '.join(_COLUMNS)}) "
_ADDING: Final = f"ON CONFLICT ({_KEY}) DO UPDATE SET " + ", ".join(
    f"{c} = verdict_day_totals.{c} + excluded.{c}" for c in _COLUMNS
)

FOLD: Final = (
    f"{_INSERT}"
    f"SELECT {_KEY}, count(*), count(score_value), coalesce(sum(score_value), 0), "
    "coalesce(sum(score_value * score_value), 0), "
    f"sum(CASE WHEN score_value IS NOT NULL AND NOT {_EXACT} THEN 1 ELSE 0 END), "
    "sum(CASE WHEN status IN ('scored', 'abstained') THEN 1 ELSE 0 END), "
    "sum(CASE WHEN status = 'scored' THEN 1 ELSE 0 END) "
    # NOT INDEXED: read by id, where the planner would rather walk a rubric index.
    f"FROM verdicts NOT INDEXED WHERE id > {_FOLDED} GROUP BY {_KEY} {_ADDING}"
)
"""Add the verdicts past the mark to their totals."""

MOVE_MARK: Final = (
    "UPDATE verdict_day_totals_mark SET verdict_id = coalesce((SELECT max(id) FROM verdicts), 0)"
)
"""Then move the mark to the newest verdict."""


def fold_new_verdicts(cursor: Any) -> None:
    """Fold the verdicts no writer has counted yet into their daily totals, in the
    transaction ``cursor`` (a sqlite3 cursor) is in."""
    cursor.execute(FOLD)
    cursor.execute(MOVE_MARK)


TAKE_MARK: Final = "UPDATE verdict_day_totals_mark SET verdict_id = verdict_id"
"""Changes nothing, but takes the write lock as a transaction's first statement (waiting for
other writers as an INSERT would): the mark and the newest verdict read next stay as read
until the commit."""

MARK_AND_NEWEST: Final = (
    "SELECT verdict_id, (SELECT coalesce(max(id), 0) FROM verdicts) FROM verdict_day_totals_mark"
)
"""The mark and the newest verdict's id (0 for none)."""

NEWEST: Final = "SELECT coalesce(max(id), 0) FROM verdicts"

ADD: Final = f"{_INSERT}VALUES ({', '.join('?' * (5 + len(_COLUMNS)))}) {_ADDING}"
"""Add one row of :func:`counted_totals` to its totals, as FOLD adds a group."""

# The verdict columns counted_totals takes its counts by: the key less the batch (one a
# call), then status and score_value.
COUNTED: Final = ("rubric_id", "rubric_version", "model", "day", "status", "score_value")


def counted_totals(
    counts: Mapping[tuple[Any, ...], int], batch_id: int
) -> list[tuple[Any, ...]] | None:
    """What FOLD adds for new verdicts of ``batch_id`` counted by :data:`COUNTED`: a row of
    :data:`ADD` per key; or None when a score value is not a whole number within ±1000
    (the only values whose sums are exact in any order, and never ``inexact``).

    The same values as FOLD's, type for type: counts as integers, sums as floats (a sum of
    no scores is 0, which the FLOAT column keeps as 0.0).
    """
    totals: dict[tuple[Any, ...], list[Any]] = {}
    for (rubric_id, version, model, day, status, value), count in counts.items():
        if value is not None and not (
            type(value) is float and value.is_integer() and abs(value) <= 1000
        ):
            return None
        row = totals.setdefault((rubric_id, version, model, day), [0, 0, 0.0, 0.0, 0, 0])
        row[0] += count
        if value is not None:
            row[1] += count
            row[2] += value * count
            row[3] += value * value * count
        if status in ("scored", "abstained"):
            row[4] += count
            if status == "scored":
                row[5] += count
    return [
        (*key, batch_id, verdicts, scores, total, squares, 0, judged, kept)
        for key, (verdicts, scores, total, squares, judged, kept) in totals.items()
    ]
