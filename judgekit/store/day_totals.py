"""Folding new verdicts into ``verdict_day_totals`` on SQLite: the one fold, run by the
store's verdict writes and by migration 0005.

PostgreSQL's triggers count every verdict as it is written; SQLite has no statement
triggers, and a row trigger on INSERT would slow every recording, so a writer folds in the
verdicts past the mark once it has written them, in the same transaction: one aggregate over
the rows just written, read by their ids. See :mod:`judgekit.store.migration_day_totals`.
"""

from __future__ import annotations

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


def fold_new_verdicts(connection: Any) -> None:
    """Fold the verdicts no writer has counted yet into their daily totals, in the
    transaction ``connection`` is in: a SQLAlchemy connection, or a sqlite3 connection or
    cursor."""
    execute = getattr(connection, "exec_driver_sql", None) or connection.execute
    execute(FOLD)
    execute(MOVE_MARK)
