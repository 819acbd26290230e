"""Migration 0005: ``verdict_day_totals``, the verdicts' daily totals kept beside them.

One row per rubric, version, judge model, UTC day and batch holds what the monitor, the gate
and the rubric list read off the verdicts — how many, how many with a numeric score, the sum
and sum of squares of those scores, how many were judged (scored or abstained) and how many
kept (scored) — so a 90-day monitor query over ten million verdicts reads a few hundred rows.

Every write keeps them current, in the same transaction as the verdicts:

- SQLite: new verdicts are folded in by the writer, one aggregate over the rows past
  ``verdict_day_totals_mark`` (the newest verdict id counted) once it has written them (a
  row trigger on INSERT would slow every recording); rows another writer
  inserted without folding them are read from the verdicts by every query until the next
  fold. A replaced verdict (an upsert's ``DO UPDATE``) and a deleted one go through row
  triggers, which leave alone rows not yet folded in.
- PostgreSQL: statement triggers with transition tables, one aggregate per statement for
  inserted, replaced and deleted rows alike.

Sums of floats depend on the order they were added in, and a replaced score is subtracted:
``inexact`` counts the scores whose sums a double may not hold exactly (not a whole number, or
beyond ±1000), and never goes down, so a query whose totals saw one reads the verdicts
themselves and prints exactly what it printed before.

The covering index ``ix_verdicts_rubric_day`` served only those aggregates: it is dropped
(every verdict written paid for it). Like every migration this is written against the tables
as they were when it was made, and never edited.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import Connection

from judgekit.store.day_totals import fold_new_verdicts

TOTALS: Final = "verdict_day_totals"
KEY: Final = "rubric_id, rubric_version, model, day, batch_id"
# Whole numbers this small keep every sum of squares exact in a double up to 9e9 verdicts.
_EXACT: Final = "({v} = round({v}) AND abs({v}) <= 1000)"


def _contribution(row: str, sign: str, *, inexact: bool = True) -> str:
    """The aggregate columns of the rows of ``row`` (a table or transition table), each
    multiplied by ``sign`` ("" or "-"); ``inexact`` False leaves that count alone."""
    v = "score_value"
    exact = _EXACT.format(v=v)
    inexact_sum = f"sum(CASE WHEN {v} IS NOT NULL AND NOT {exact} THEN 1 ELSE 0 END)"
    return (
        f"SELECT {KEY}, {sign}count(*), {sign}count({v}), "
        f"{sign}coalesce(sum({v}), 0), {sign}coalesce(sum({v} * {v}), 0), "
        f"{inexact_sum if inexact else '0'}, "
        f"{sign}sum(CASE WHEN status IN ('scored', 'abstained') THEN 1 ELSE 0 END), "
        f"{sign}sum(CASE WHEN status = 'scored' THEN 1 ELSE 0 END) FROM {row}"
    )


COLUMNS: Final = "verdicts, scores, score_sum, score_squares, inexact, judged, kept"
ADDING: Final = f"ON CONFLICT ({KEY}) DO UPDATE SET " + ", ".join(
    f"{c} = {TOTALS}.{c} + excluded.{c}" for c in COLUMNS.split(", ")
)


def _create_table(connection: Connection) -> None:
    without_rowid = " WITHOUT ROWID" if connection.dialect.name == "sqlite" else ""
    connection.exec_driver_sql(
        f"CREATE TABLE {TOTALS} ("
        "rubric_id VARCHAR NOT NULL, rubric_version VARCHAR NOT NULL, model VARCHAR NOT NULL, "
        "day VARCHAR(10) NOT NULL, batch_id INTEGER NOT NULL, verdicts INTEGER NOT NULL, "
        "scores INTEGER NOT NULL, score_sum FLOAT NOT NULL, score_squares FLOAT NOT NULL, "
        "inexact INTEGER NOT NULL, judged INTEGER NOT NULL, kept INTEGER NOT NULL, "
        f"CONSTRAINT pk_{TOTALS} PRIMARY KEY ({KEY})){without_rowid}"
    )


MARK: Final = f"{TOTALS}_mark"
_FOLDED: Final = f"(SELECT verdict_id FROM {MARK})"


def _sqlite_triggers(connection: Connection) -> None:
    connection.exec_driver_sql(f"CREATE TABLE {MARK} (verdict_id INTEGER NOT NULL)")
    connection.exec_driver_sql(f"INSERT INTO {MARK} (verdict_id) VALUES (0)")
    for event, rows in (("UPDATE", ("OLD", "NEW")), ("DELETE", ("OLD",))):
        statements = "".join(
            f"INSERT INTO {TOTALS} ({KEY}, {COLUMNS}) "
            f"SELECT {_one_row_values(row, '-' if row == 'OLD' else '', row == 'NEW')} "
            f"WHERE {row}.id <= {_FOLDED} {ADDING}; "
            for row in rows
        )
        if event == "DELETE":
            # The newest verdict gone, its id can be given again: to a row not yet folded.
            statements += (
                f"UPDATE {MARK} SET verdict_id = "
                "min(verdict_id, coalesce((SELECT max(id) FROM verdicts), 0)); "
            )
        connection.exec_driver_sql(
            f"CREATE TRIGGER {TOTALS}_{event.lower()} AFTER {event} ON verdicts "
            f"BEGIN {statements}END"
        )


def _prefixed(row: str) -> str:
    return ", ".join(f"{row}.{name}" for name in KEY.split(", "))


def _one_row_values(row: str, sign: str, inexact: bool) -> str:
    """One verdict's contribution, as the VALUES of a row trigger."""
    v = f"{row}.score_value"
    exact = _EXACT.format(v=v)
    counted = f"(CASE WHEN {v} IS NOT NULL AND NOT {exact} THEN 1 ELSE 0 END)"
    return (
        f"{_prefixed(row)}, {sign}1, {sign}({v} IS NOT NULL), {sign}coalesce({v}, 0), "
        f"{sign}coalesce({v} * {v}, 0), {counted if inexact else '0'}, "
        f"{sign}({row}.status IN ('scored', 'abstained')), {sign}({row}.status = 'scored')"
    )


def _postgres_triggers(connection: Connection) -> None:
    events = {
        "insert": ("REFERENCING NEW TABLE AS new_rows", _contribution("new_rows", "")),
        "update": (
            "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
            f"{_contribution('old_rows', '-', inexact=False)} GROUP BY {KEY} UNION ALL "
            f"{_contribution('new_rows', '')}",
        ),
        "delete": (
            "REFERENCING OLD TABLE AS old_rows",
            _contribution("old_rows", "-", inexact=False),
        ),
    }
    for event, (referencing, select) in events.items():
        function = f"{TOTALS}_{event}"
        # One row per key (ON CONFLICT may not touch a row twice in a statement), in key
        # order, so two writers lock the rows they share in the same order.
        summed = ", ".join(f"sum({c})" for c in COLUMNS.split(", "))
        merged = (
            f"SELECT {KEY}, {summed} FROM ({select} GROUP BY {KEY}) AS parts("
            f"{KEY}, {COLUMNS}) GROUP BY {KEY} ORDER BY {KEY}"
        )
        connection.exec_driver_sql(
            f"CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"INSERT INTO {TOTALS} ({KEY}, {COLUMNS}) {merged} {ADDING}; "
            "RETURN NULL; END $$"
        )
        connection.exec_driver_sql(
            f"CREATE TRIGGER {function} AFTER {event.upper()} ON verdicts {referencing} "
            f"FOR EACH STATEMENT EXECUTE PROCEDURE {function}()"
        )


def add_verdict_day_totals(connection: Connection) -> None:
    """The totals table, filled from the verdicts already stored, its triggers, and the
    covering index it replaces dropped."""
    _create_table(connection)
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"CREATE TABLE {MARK} (verdict_id INTEGER NOT NULL)")
        connection.exec_driver_sql(
            f"INSERT INTO {TOTALS} ({KEY}, {COLUMNS}) "
            f"{_contribution('verdicts', '')} GROUP BY {KEY}"
        )
        _postgres_triggers(connection)
    else:
        _sqlite_triggers(connection)
        fold_new_verdicts(connection)  # the store's own fold
    connection.exec_driver_sql("DROP INDEX ix_verdicts_rubric_day")
