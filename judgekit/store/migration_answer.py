"""Migration 0003: grades get ``answer_passed``, the Answer check's result as a column.

Kept out of :mod:`judgekit.store.migrations` (which lists it) only for size; like every
migration it is written against the tables as they were when it was made, and never edited.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, MetaData, Table, bindparam, select


def add_grades_answer_passed(connection: Connection) -> None:
    """A nullable ``answer_passed`` on grades, filled from each stored grade's JSON where it
    holds an answer result (grades stored before Answer existed, or of tasks without
    ``expect_answer``, stay NULL: not checked)."""
    connection.exec_driver_sql("ALTER TABLE grades ADD COLUMN answer_passed BOOLEAN")
    grades = Table("grades", MetaData(), autoload_with=connection)
    # Read in Python rather than with JSON operators: SQLite's and PostgreSQL's differ, and
    # this runs once per database.
    values = [
        {"row": row_id, "value": passed}
        for row_id, data in connection.execute(select(grades.c.id, grades.c.data))
        if (passed := _answer_passed(data)) is not None
    ]
    if values:
        connection.execute(
            grades.update()
            .where(grades.c.id == bindparam("row"))
            .values(answer_passed=bindparam("value")),
            values,
        )


def _answer_passed(data: Any) -> bool | None:
    """``data["answer"]["passed"]`` when the stored grade has an answer result, else None."""
    answer = data.get("answer") if isinstance(data, dict) else None
    passed = answer.get("passed") if isinstance(answer, dict) else None
    return passed if isinstance(passed, bool) else None
