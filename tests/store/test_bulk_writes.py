"""The store's bulk writes (executemany on SQLite, COPY on PostgreSQL) store exactly what
SQLAlchemy's own execution of the same upserts stores, chunk after chunk: the same column
values byte for byte, the same winner among repeated keys, the same count."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone
from itertools import islice
from typing import Any

import pytest
from sqlalchemy import Table
from sqlalchemy.sql.dml import Insert

from judgekit.formats.verdict import Verdict
from judgekit.store import Store, bulk, schema
from judgekit.store.engine import writing
from judgekit.store.rows import grade_row, run_row, storable, verdict_row
from judgekit.store.statements import upsert, verdict_upsert
from tests.store.factories import AT, make_grade, make_run, make_verdict


def reference_upsert(
    store: Store,
    table: Table,
    key: Sequence[str],
    rows: Iterable[dict[str, Any]],
    statement: Insert,
) -> int:
    """The upsert as SQLAlchemy executes it, 500 rows a statement (the store's chunks)."""
    written = 0
    iterator = iter(rows)
    with writing(store.engine) as connection:
        while chunk := list(islice(iterator, 500)):
            unique = {tuple(row[name] for name in key): row for row in chunk}
            connection.execute(
                statement, storable(list(unique.values()), store.engine.dialect.name)
            )
            written += len(unique)
    return written


def stored(
    store: Store, table: Table, batch_id: int, *, leave_out: Sequence[str] = ()
) -> list[Any]:
    """The batch's rows as the database holds them (JSON as its text on SQLite), by run."""
    names = [n for n in bulk.bulk_columns(table) if n != "batch_id" and n not in leave_out]
    with store.engine.connect() as connection:
        rows = connection.exec_driver_sql(
            f"SELECT {', '.join(names)} FROM {table.name} WHERE batch_id = {batch_id} "
            "ORDER BY run_id"
        ).all()
    # NaN (a NaN score's score_value on PostgreSQL) equals nothing, itself included.
    return [tuple("NaN" if v != v else v for v in row) for row in rows]


def varied_verdicts() -> list[Verdict]:
    """Verdicts whose every column takes an unusual value somewhere."""
    east = timezone(timedelta(hours=5, minutes=30))
    return [
        make_verdict("v/0"),
        make_verdict("v/1", at=datetime(2026, 11, 29, 23, 30)),  # naive: taken as UTC
        make_verdict("v/2", at=datetime(2026, 11, 30, 2, 0, tzinfo=east)),  # the 29th in UTC
        make_verdict("v/3", score=4, samples=None, agreement=None, position_bias=None),
        make_verdict("v/4", score=2.5, confidence=0.75),
        make_verdict("v/5", score={"grade": "A", "parts": [1, None, True]}),
        make_verdict("v/6", score=math.nan),  # JSON mode makes it null
        make_verdict("v/7", status="unscored", score=None, unscored_reason="off the scale"),
        make_verdict("v/8", status="abstained", score="fail", confidence=0.2),
        make_verdict("v/9", reason='a\x00b — 🎉 "quoted" \\ back\tslash\nnew line'),
        make_verdict("v/10", reason=None, cost_usd=None, latency_s=None, cached=False),
    ]


def test_verdicts_are_stored_as_sqlalchemy_stores_them(store: Store) -> None:
    verdicts = varied_verdicts()
    bulk_batch = store.new_batch()
    reference_batch = store.new_batch()

    assert store.record_verdicts(verdicts, bulk_batch) == 11
    rows = (verdict_row(v, reference_batch) for v in verdicts)
    statement = verdict_upsert(store.engine.dialect.name)
    assert reference_upsert(store, schema.verdicts, schema.VERDICT_KEY, rows, statement) == 11

    written = stored(store, schema.verdicts, bulk_batch)
    assert written == stored(store, schema.verdicts, reference_batch)
    assert [row[0] for row in written] == [f"v/{i}" for i in (0, 1, 10, 2, 3, 4, 5, 6, 7, 8, 9)]
    day_at = bulk.bulk_columns(schema.verdicts).index("day")
    days = {row[0]: row[day_at] for row in written}
    assert (days["v/0"], days["v/1"], days["v/2"]) == ("2026-11-29", "2026-11-29", "2026-11-29")


def test_runs_and_grades_are_stored_as_sqlalchemy_stores_them(store: Store) -> None:
    runs = [make_run(f"r/{i}", final_answer=f"answer {i}\x00") for i in range(3)]
    runs.append(make_run("r/3", usage=None, trial=None, metadata={}))
    grades = [make_grade(f"r/{i}") for i in range(3)] + [make_grade("r/3", truth=None)]
    bulk_batch = store.new_batch()
    reference_batch = store.new_batch()
    dialect = store.engine.dialect.name

    assert store.record_runs(runs, bulk_batch) == 4
    assert store.record_grades(grades, bulk_batch, at=AT) == 4
    run_rows = (run_row(r, reference_batch, AT) for r in runs)
    grade_rows = (grade_row(g, reference_batch, AT) for g in grades)
    reference_upsert(
        store, schema.runs, schema.RUN_KEY, run_rows, upsert(schema.runs, schema.RUN_KEY, dialect)
    )
    reference_upsert(
        store,
        schema.grades,
        schema.GRADE_KEY,
        grade_rows,
        upsert(schema.grades, schema.GRADE_KEY, dialect),
    )

    # record_runs times its rows itself.
    assert stored(store, schema.runs, bulk_batch, leave_out=["at"]) == stored(
        store, schema.runs, reference_batch, leave_out=["at"]
    )
    assert stored(store, schema.grades, bulk_batch) == stored(store, schema.grades, reference_batch)


def repeated_verdicts() -> list[Verdict]:
    """1,300 verdicts on 450 runs: keys repeat within a chunk of 500 and across chunks, and a
    later unscored verdict meets an earlier scored one (which it must not replace)."""
    verdicts = []
    for i in range(1_300):
        status = "unscored" if i % 7 == 0 else "scored"
        verdicts.append(
            make_verdict(
                f"d/{i % 450}",
                status=status,
                score=None if status == "unscored" else ("pass" if i % 2 else "fail"),
                reason=f"verdict {i}",
                at=AT + timedelta(seconds=i),
            )
        )
    return verdicts


@pytest.mark.parametrize("segment", [20_000, 600, 1])
def test_repeated_keys_end_as_chunk_after_chunk(
    store: Store, segment: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small segment makes PostgreSQL COPY and merge many times within one call.
    monkeypatch.setattr(bulk, "_SEGMENT", segment)
    verdicts = repeated_verdicts()
    bulk_batch = store.new_batch()
    reference_batch = store.new_batch()

    written = store.record_verdicts(verdicts, bulk_batch)
    rows = (verdict_row(v, reference_batch) for v in verdicts)
    statement = verdict_upsert(store.engine.dialect.name)
    assert written == reference_upsert(store, schema.verdicts, schema.VERDICT_KEY, rows, statement)
    assert written == 1_200  # distinct runs of each chunk: 450, 450 and 300

    reason_at = bulk.bulk_columns(schema.verdicts).index("reason")
    result = stored(store, schema.verdicts, bulk_batch)
    assert result == stored(store, schema.verdicts, reference_batch)
    by_run = {row[0]: row for row in result}
    assert len(by_run) == 450
    # d/3: verdict 453 (scored) wins the first chunk; 903 (unscored) must not replace it.
    assert by_run["d/3"][reason_at] == "verdict 453"
    # d/5: 455 (unscored) wins the first chunk over 5; 905 (scored) replaces it.
    assert by_run["d/5"][reason_at] == "verdict 905"
