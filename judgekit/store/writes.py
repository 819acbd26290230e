"""The store's writes: verdicts, runs, grades, calibrations and promotions.

Every write is an upsert on a natural key, so recording the same thing twice never counts it
twice: a run, grade or verdict is one per batch, a calibration one per report digest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from itertools import islice
from operator import itemgetter
from typing import Any, Final

from sqlalchemy import Connection, Table
from sqlalchemy.sql.dml import Insert

from judgekit.formats.grade import Grade
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.store import schema
from judgekit.store.batches import StoreBatches
from judgekit.store.bulk import write_chunks
from judgekit.store.day_totals import fold_new_verdicts
from judgekit.store.engine import writing
from judgekit.store.rows import (
    calibration_row,
    grade_row,
    promotion_row,
    run_row,
    storable,
    verdict_row,
)
from judgekit.store.statements import insert_ignoring, upsert, verdict_upsert

# Rows are taken this many at a time, repeated keys settled within each chunk (the last kept):
# a million-row iterable is streamed, not held in memory, while the whole call stays one
# transaction.
_CHUNK: Final = 500


class StoreWrites(StoreBatches):
    """The store's record_* methods, each one transaction."""

    def record_verdicts(self, verdicts: Iterable[Verdict], batch_id: int | None = None) -> int:
        """Record verdicts in one transaction; return how many rows were written.

        A verdict already stored in the batch for the same run, rubric version and model is
        replaced (the later one wins), so recording again never duplicates — except that an
        unscored verdict never replaces a scored one. Without a batch
        the verdicts go to the store's one "unbatched" batch.
        """
        batch = self._unbatched() if batch_id is None else batch_id
        return self._upsert(
            schema.verdicts,
            schema.VERDICT_KEY,
            (verdict_row(v, batch) for v in verdicts),
            statement=verdict_upsert(self._dialect),
            # SQLite's totals are folded once, when every row is in (PostgreSQL's triggers
            # count each statement's).
            at_end=fold_new_verdicts if self._dialect == "sqlite" else None,
        )

    def record_runs(self, runs: Iterable[Run], batch_id: int, *, shard: str | None = None) -> int:
        """Record runs (whole, so a judge can be asked about them again) in a batch, each
        labelled with the ``shard`` ("I/N") that ran it, if any."""
        now = datetime.now(UTC)
        rows = (run_row(r, batch_id, now, shard) for r in runs)
        return self._upsert(schema.runs, schema.RUN_KEY, rows)

    def record_grades(
        self, grades: Iterable[Grade], batch_id: int, *, at: datetime | None = None
    ) -> int:
        """Record grades in a batch, timed ``at`` (default: now) for the monitor."""
        when = at or datetime.now(UTC)
        return self._upsert(
            schema.grades, schema.GRADE_KEY, (grade_row(g, batch_id, when) for g in grades)
        )

    def record_calibration(self, report: Mapping[str, Any], *, at: datetime | None = None) -> None:
        """Record a calibration report (the dict ``judgekit calibrate --json`` prints);
        the same report twice is kept once."""
        row = calibration_row(report, at or datetime.now(UTC))
        self._insert_once(schema.calibrations, ["rubric_id", "digest"], row)

    def record_promotion(
        self,
        record: Mapping[str, Any],
        *,
        status: str = "promoted",
        reason: str | None = None,
        at: datetime | None = None,
    ) -> None:
        """Record a promotion (the record ``judgekit promote`` writes) or, with status
        ``stale``, the recheck that found its judge drifted."""
        row = promotion_row(record, status=status, reason=reason, at=at or datetime.now(UTC))
        key = ["rubric_id", "rubric_version", "model", "at"]
        self._insert_once(schema.promotions, key, row)

    def _insert_once(self, table: Table, key: Sequence[str], row: dict[str, Any]) -> None:
        """Insert ``row`` unless a row with its ``key`` is there already."""
        statement = insert_ignoring(table, key, self._dialect)
        with writing(self._engine) as connection:
            connection.execute(statement, storable([row], self._dialect))

    def _upsert(
        self,
        table: Table,
        key: tuple[str, ...],
        rows: Iterable[dict[str, Any]],
        *,
        statement: Insert | None = None,
        at_end: Callable[[Connection], None] | None = None,
    ) -> int:
        """Upsert ``rows`` in one transaction, ``at_end`` run in it once they are written;
        of rows with one key in a chunk, the later, in the first's place."""
        statement = upsert(table, key, self._dialect) if statement is None else statement
        written = 0
        key_of = itemgetter(*key)

        def unique_chunks() -> Iterator[list[dict[str, Any]]]:
            nonlocal written
            for chunk in _chunks(rows, _CHUNK):
                # Keep the last of duplicates: one multi-row upsert may not touch a row twice
                # on PostgreSQL.
                unique = {key_of(row): row for row in chunk}
                written += len(unique)
                yield storable(list(unique.values()), self._dialect)

        with writing(self._engine) as connection:
            write_chunks(connection, table, statement, key, unique_chunks())
            if at_end is not None:
                at_end(connection)
        return written


def _chunks(items: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
