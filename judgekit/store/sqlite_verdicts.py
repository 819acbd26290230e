"""Recording verdicts in SQLite at the driver's speed: each verdict goes straight to the
tuple of the upsert's parameters in one pass (no row dict, no per-column conversion), the
upsert compiled once, ``executemany`` on the driver inside the store's transaction, and the
new verdicts folded into their daily totals once at the end.

The values are exactly those of the general path (:func:`judgekit.store.rows.verdict_row`
through :mod:`judgekit.store.bulk`'s converters); a test holds the two equal verdict by
verdict.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC
from itertools import islice
from typing import Any, Final

from sqlalchemy import Connection

from judgekit.formats.verdict import Verdict
from judgekit.store import schema
from judgekit.store.bulk import bulk_columns, prepared
from judgekit.store.day_totals import FOLD, MOVE_MARK
from judgekit.store.score_value import score_value
from judgekit.store.sqlite_values import json_text, utc_text
from judgekit.store.statements import verdict_upsert

Values = tuple[Any, ...]

# The order verdict_values builds; checked against the table's before any row is written.
COLUMNS: Final = (
    "run_id",
    "rubric_id",
    "rubric_version",
    "model",
    "status",
    "score",
    "score_value",
    "reason",
    "samples",
    "agreement",
    "position_bias",
    "unscored_reason",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "latency_s",
    "cached",
    "at",
    "day",
    "batch_id",
    "confidence",
)
# Verdicts a statement, as the general path: repeated keys are settled within a chunk (the
# last kept) and across chunks by the upsert (where an unscored verdict never replaces a
# scored one), so the chunks' bounds decide which verdict stays, and the count returned.
_CHUNK: Final = 500


def verdict_values(verdict: Verdict, batch_id: int) -> Values:
    """A verdict as the values of :data:`COLUMNS`, as SQLite stores them."""
    fields = verdict.__dict__
    at = fields["at"]
    # UtcDateTime's text (isoformat() gives the microseconds when they are not 0, and is
    # quicker without the keyword); its first ten characters are the UTC day.
    if at.tzinfo is not UTC:
        at_text = utc_text(at)
    elif at.microsecond:
        at_text = at.isoformat()
    else:
        at_text = at.isoformat(timespec="microseconds")
    assert at_text is not None
    score, status, samples = fields["score"], fields["status"], fields["samples"]
    return (
        fields["run_id"],
        fields["rubric_id"],
        fields["rubric_version"],
        fields["model"],
        status,
        json_text(score if _is_json_value(score) else _json_score(verdict)),
        score_value(score) if status == "scored" else None,
        fields["reason"],
        None if samples is None else json_text([s.model_dump(mode="json") for s in samples]),
        fields["agreement"],
        fields["position_bias"],
        fields["unscored_reason"],
        fields["input_tokens"],
        fields["output_tokens"],
        fields["cost_usd"],
        fields["latency_s"],
        fields["cached"],
        at_text,
        at_text[:10],
        batch_id,
        fields["confidence"],
    )


def _is_json_value(score: Any) -> bool:
    """A score JSON holds as it is (a float only when finite: JSON mode makes others null)."""
    return isinstance(score, str | int | None) or (
        isinstance(score, float) and math.isfinite(score)
    )


def _json_score(verdict: Verdict) -> Any:
    return verdict.model_dump(mode="json", include={"score"})["score"]


def record_sqlite_verdicts(
    connection: Connection, verdicts: Iterable[Verdict], batch_id: int
) -> int:
    """Upsert ``verdicts`` into the batch in the transaction ``connection`` is in, the later
    of repeated keys kept; return how many rows were written."""
    if bulk_columns(schema.verdicts) != list(COLUMNS):
        raise AssertionError(f"the verdicts table's columns moved: {bulk_columns(schema.verdicts)}")
    sql, constants = prepared(connection, schema.verdicts, verdict_upsert("sqlite"))
    written = 0
    iterator = iter(verdicts)
    while chunk := list(islice(iterator, _CHUNK)):
        # The last of repeated keys wins, in the place of the first (as the general path).
        unique = {(v.run_id, v.rubric_id, v.rubric_version, v.model): v for v in chunk}
        rows = [verdict_values(v, batch_id) + constants for v in unique.values()]
        connection.exec_driver_sql(sql, rows)
        written += len(rows)
    connection.exec_driver_sql(FOLD)
    connection.exec_driver_sql(MOVE_MARK)
    return written
