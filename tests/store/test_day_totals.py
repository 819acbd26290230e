"""The verdicts' daily totals (``verdict_day_totals``) equal the aggregate of the verdicts
themselves after every kind of write, on both backends, and the monitor's and the gate's
queries give from them exactly what they give from the verdicts."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, insert, text

from judgekit.formats.verdict import Verdict
from judgekit.store import Store, open_store, queries, schema
from judgekit.store.bulk import _row_values, _sqlite_converter, bulk_columns
from judgekit.store.day_totals import fold_new_verdicts
from judgekit.store.migrations import MIGRATIONS, applied_migrations, apply_migrations
from judgekit.store.queries import (
    scored_verdict_sums,
    stored_rubric_ids,
    verdict_coverage_counts,
    verdict_score_sums,
)
from judgekit.store.rows import verdict_row
from judgekit.store.run_filter import EVERYTHING, RunFilter
from tests.store.factories import make_verdict

START = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
KEY = "rubric_id, rubric_version, model, day, batch_id"
RAW = (
    f"SELECT {KEY}, count(*), count(score_value), coalesce(sum(score_value), 0), "
    "coalesce(sum(score_value * score_value), 0), "
    "sum(CASE WHEN status IN ('scored', 'abstained') THEN 1 ELSE 0 END), "
    "sum(CASE WHEN status = 'scored' THEN 1 ELSE 0 END) "
    f"FROM verdicts GROUP BY {KEY} ORDER BY {KEY}"
)
TOTALS = (
    f"SELECT {KEY}, verdicts, scores, score_sum, score_squares, judged, kept "
    f"FROM verdict_day_totals WHERE verdicts != 0 ORDER BY {KEY}"
)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with open_store(store_url) as opened:
        yield opened


def totals_and_verdicts(store: Store) -> tuple[list[Any], list[Any]]:
    with store.engine.connect() as connection:
        return (
            [tuple(row) for row in connection.execute(text(TOTALS))],
            [tuple(row) for row in connection.execute(text(RAW))],
        )


def judged(i: int, **changes: Any) -> Verdict:
    """Verdict ``i``: a pass or fail on one rubric, or a Likert point on another; by one of
    two judge models; on one of three days."""
    half = i // 2
    likert = i % 2 == 0
    fields: dict[str, Any] = {
        "rubric_id": "helpfulness" if likert else "goal_completion",
        "model": "m/a" if half % 2 else "m/b",
        "score": half % 5 + 1 if likert else ("pass" if half % 3 else "fail"),
        "samples": None,
        "at": START + timedelta(days=i // 4 % 3, seconds=i),
    }
    return make_verdict(f"shop/task{i % 7}/{i}", **(fields | changes))


def rejudged(i: int) -> Verdict:
    """Verdict ``i`` again, a day later: another score, abstained, or unscored (which never
    replaces a scored verdict)."""
    base = judged(i)
    later = base.at + timedelta(days=1)
    if i % 5 == 0:
        return base.model_copy(update={"status": "abstained", "at": later})
    if i % 5 == 1:
        return base.model_copy(update={"status": "unscored", "score": None, "at": later})
    score = "fail" if base.score == "pass" else "pass" if base.score == "fail" else 5
    return base.model_copy(update={"score": score, "at": later})


def test_totals_equal_the_verdicts_after_inserts_rejudging_and_deletes(store: Store) -> None:
    first, second = store.new_batch(), store.new_batch()
    store.record_verdicts([judged(i) for i in range(1_300)], first)
    store.record_verdicts([judged(i) for i in range(0, 600, 3)], second)
    totals, verdicts = totals_and_verdicts(store)
    assert totals == verdicts
    # 2 rubrics x 2 models x 3 days in the first batch; in the second, every third verdict
    # falls on 4 of those 12.
    assert len(totals) == 16
    assert sum(row[5] for row in totals) == 1_500

    # Re-judging replaces scores, statuses and days (an unscored verdict is kept out),
    # with repeats inside one call.
    store.record_verdicts([rejudged(i) for i in range(0, 1_300, 3)] * 2, first)
    totals, verdicts = totals_and_verdicts(store)
    assert totals == verdicts
    assert sum(row[5] for row in totals) == 1_500
    assert len(totals) == 17  # some re-judged verdicts of the third day moved to a fourth

    with store.engine.begin() as connection:
        connection.execute(text("DELETE FROM verdicts WHERE id % 11 = 0"))
        deleted = connection.execute(text("SELECT count(*) FROM verdicts")).scalar_one()
    totals, verdicts = totals_and_verdicts(store)
    assert totals == verdicts
    assert sum(row[5] for row in totals) == deleted


def test_a_verdict_taking_the_id_of_a_deleted_newest_one_is_counted(store: Store) -> None:
    batch = store.new_batch()
    store.record_verdicts([judged(i) for i in range(10)], batch)
    with store.engine.begin() as connection:
        connection.execute(text("DELETE FROM verdicts WHERE id = (SELECT max(id) FROM verdicts)"))
    # SQLite gives the next verdict the deleted one's id: it must still be folded in.
    store.record_verdicts([judged(100)], batch)
    totals, verdicts = totals_and_verdicts(store)
    assert totals == verdicts
    assert sum(row[5] for row in totals) == 10


def both_ways(monkeypatch: pytest.MonkeyPatch, query: Any) -> tuple[Any, Any]:
    """``query()`` answered from the daily totals, then from the verdicts alone."""
    from_totals = query()
    with monkeypatch.context() as patch:
        patch.setattr(queries, "reads_totals", lambda *args, **kwargs: False)
        from_verdicts = query()
    return from_totals, from_verdicts


def test_the_monitor_and_gate_queries_read_from_the_totals_what_the_verdicts_give(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = store.batch(key="runs:main", source="judge", branch="main")
    other = store.batch(key="runs:other", source="judge", branch="feature")
    store.record_verdicts([judged(i) for i in range(900)], main)
    store.record_verdicts([judged(i) for i in range(300)], other)
    store.record_verdicts([rejudged(i) for i in range(0, 900, 3)], main)
    since = START + timedelta(days=1, minutes=7)  # inside the second day's verdicts
    cases: list[Any] = []
    for rubric in ("goal_completion", "helpfulness"):
        for only in (EVERYTHING, RunFilter(branch="main")):
            for by, when in (("day", None), ("day", since), ("batch", None), ("batch", since)):
                for version, model in ((None, None), ("3f2a9c", "m/a")):
                    scope = {"rubric_version": version, "model": model}
                    cases.append(
                        lambda r=rubric, s=scope, w=when, b=by, o=only: verdict_score_sums(
                            store, r, since=w, by=b, only=o, **s
                        )
                    )
                    cases.append(
                        lambda r=rubric, s=scope, w=when, b=by, o=only: verdict_coverage_counts(
                            store, r, since=w, by=b, only=o, **s
                        )
                    )
            cases.append(
                lambda r=rubric, o=only: scored_verdict_sums(
                    store, main, r, "3f2a9c", "m/a", only=o
                )
            )
        cases.append(lambda w=since: stored_rubric_ids(store, since=w))
    for case in cases:
        from_totals, from_verdicts = both_ways(monkeypatch, case)
        assert from_totals == from_verdicts
        assert from_totals  # every case finds something
    sums = verdict_score_sums(
        store, "goal_completion", rubric_version=None, model=None, since=None, by="day"
    )
    # 600 pass/fail verdicts, less the 30 re-judged as abstained; 90 moved a day later.
    assert [(w.label, w.values) for w in sums] == [
        ("2026-11-01", (140, 40.0, 40.0)),
        ("2026-11-02", (245, 100.0, 100.0)),
        ("2026-11-03", (140, 140.0, 140.0)),
        ("2026-11-04", (45, 0.0, 0.0)),
    ]
    assert [type(v) for v in sums[0].values] == [int, float, float]


def test_fractional_scores_are_read_from_the_verdicts(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = store.new_batch()
    scores = [0.1, 0.7, 0.2, 0.9, 0.3, 2, 4.0, 1e6]
    store.record_verdicts(
        [judged(i, rubric_id="r", score=s, at=START) for i, s in enumerate(scores)], batch
    )
    store.record_verdicts([judged(0, rubric_id="r", score=0.6, at=START)], batch)
    with store.engine.connect() as connection:
        inexact = connection.execute(text("SELECT sum(inexact) FROM verdict_day_totals"))
        # 0.1 (counted still, once replaced), 0.7, 0.2, 0.9, 0.3, 1e6 and 0.6
        assert inexact.scalar_one() == 7
    query = lambda: verdict_score_sums(  # noqa: E731
        store, "r", rubric_version=None, model=None, since=None, by="day"
    )
    from_totals, from_verdicts = both_ways(monkeypatch, query)
    assert from_totals == from_verdicts
    gate = both_ways(monkeypatch, lambda: scored_verdict_sums(store, batch, "r", "3f2a9c", "m/b"))
    assert gate[0] == gate[1]
    assert gate[0][0] == 4  # verdicts 0 (re-judged 0.6), 1 (0.7), 4 (0.3) and 5 (2)


def test_verdicts_a_writer_did_not_fold_in_are_counted_until_folded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "store.sqlite"
    with open_store(f"sqlite:///{path}") as store:
        batch = store.new_batch()
        store.record_verdicts([judged(i) for i in range(100)], batch)
    # Another writer: the bare driver, with the store's upsert, without folding.
    with open_store(f"sqlite:///{path}") as store:
        names = bulk_columns(schema.verdicts)
        values = _row_values(schema.verdicts, names, _sqlite_converter)
        rows = [values(verdict_row(judged(i), batch)) for i in range(100, 160)]
    connection = sqlite3.connect(path, isolation_level=None)
    connection.executemany(
        f"INSERT INTO verdicts ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        rows,
    )
    with open_store(f"sqlite:///{path}") as store:
        totals, verdicts = totals_and_verdicts(store)
        assert sum(row[5] for row in totals) == 100
        query = lambda: verdict_score_sums(  # noqa: E731
            store, "goal_completion", rubric_version=None, model=None, since=None, by="day"
        )
        from_totals, from_verdicts = both_ways(monkeypatch, query)
        assert from_totals == from_verdicts
        assert sum(w.values[0] for w in from_totals) == 80  # 160 verdicts, half Likert
        # Re-judging a verdict not folded in yet leaves its totals to the fold.
        store.record_verdicts([rejudged(102), rejudged(103)], batch)
        assert both_ways(monkeypatch, query)[0] == both_ways(monkeypatch, query)[1]
    connection.execute("BEGIN")
    fold_new_verdicts(connection)
    connection.execute("COMMIT")
    connection.close()
    with open_store(f"sqlite:///{path}") as store:
        totals, verdicts = totals_and_verdicts(store)
        assert totals == verdicts
        assert sum(row[5] for row in totals) == 160


def test_verdicts_stored_before_the_totals_are_counted_by_the_migration(store_url: str) -> None:
    engine = create_engine(store_url)
    apply_migrations(engine, MIGRATIONS[:4])
    rows = [verdict_row(judged(i), 1) for i in range(50)]
    with engine.begin() as connection:
        connection.execute(insert(schema.batches).values(created_at=START))
        old = set(schema.verdicts.c.keys()) - {"jurors"}  # as they were before 0007
        connection.execute(
            insert(schema.verdicts), [{k: v for k, v in r.items() if k in old} for r in rows]
        )
    engine.dispose()
    with open_store(store_url) as store:
        assert "0005_verdict_day_totals" in [n for n, _ in applied_migrations(store.engine)]
        totals, verdicts = totals_and_verdicts(store)
    assert totals == verdicts
    assert sum(row[5] for row in totals) == 50
