"""A :class:`RunFilter` as SQL conditions on the grades, runs and verdicts tables: the
provenance fields through the row's batch, the suite through the run id; and, whatever the
filter, no verdict of a recheck's batch (:data:`~judgekit.store.run_filter.RECHECK_SOURCE`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, String, Subquery, Table, cast, exists, func, literal, or_, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement

from judgekit.store import schema
from judgekit.store.run_filter import RECHECK_SOURCE, RunFilter


def batch_conditions(only: RunFilter) -> list[ColumnElement[bool]]:
    """Conditions on the batches table: branch, every tag, agent version."""
    table = schema.batches
    conditions: list[ColumnElement[bool]] = []
    if only.branch is not None:
        conditions.append(table.c.branch == only.branch)
    for key, value in only.tags:
        # The batch's tags as (key, value) rows, matched whole: a JSON path would read a
        # key holding a dot or a quote as a path of several keys.
        entries = _TagEntries(table.c.tags).table_valued("key", "value")
        match = (entries.c.key == key) & (cast(entries.c.value, String) == value)
        conditions.append(exists(select(entries.c.key).where(match)))
    if only.agent_version is not None:
        conditions.append(table.c.agent_version == only.agent_version)
    return conditions


class _TagEntries(FunctionElement[Any]):
    """A JSON object's entries as rows of text ``key`` and ``value``."""

    name = "tag_entries"
    inherit_cache = True


@compiles(_TagEntries, "sqlite")
def _sqlite_entries(element: _TagEntries, compiler: SQLCompiler, **kw: Any) -> str:
    return f"json_each({compiler.process(element.clauses, **kw)})"


@compiles(_TagEntries, "postgresql")
def _postgresql_entries(element: _TagEntries, compiler: SQLCompiler, **kw: Any) -> str:
    return f"jsonb_each_text({compiler.process(element.clauses, **kw)})"


def row_conditions(table: Table | Subquery, only: RunFilter) -> list[ColumnElement[bool]]:
    """Conditions on a table with ``batch_id`` and ``run_id`` (grades, runs, verdicts), or
    with ``batch_id`` alone (the verdicts' daily totals) when ``only`` names no suite.

    Verdicts (a table with ``rubric_id``) are production's alone: a recheck re-judged old
    labelled runs to test the judge, and its verdicts count in no series, alert, gate or
    report. They stay in their own batch for whatever reads the recheck's history.
    """
    conditions: list[ColumnElement[bool]] = []
    if "rubric_id" in table.c:
        conditions.append(table.c.batch_id.not_in(_recheck_batches()))
    if only.filters_batches:
        # Not correlated: a query grouping by batch joins batches itself, and this subquery
        # must read the table on its own, not that row.
        matching = select(schema.batches.c.id).where(*batch_conditions(only)).correlate(None)
        conditions.append(table.c.batch_id.in_(matching))
    if only.suite is not None:
        if "task_id" in table.c:
            conditions.append(_in_suite(table, only.suite))
        else:  # verdicts: in the suite of their run
            runs = schema.runs
            conditions.append(
                table.c.run_id.in_(select(runs.c.run_id).where(_in_suite(runs, only.suite)))
            )
    return conditions


def _recheck_batches() -> Select[tuple[int]]:
    """The ids of the batches rechecks recorded (few: one per recheck)."""
    batches = schema.batches
    return select(batches.c.id).where(batches.c.source == RECHECK_SOURCE).correlate(None)


def _in_suite(table: Table | Subquery, suite: str) -> ColumnElement[bool]:
    """The run id starts with ``SUITE/TASK/``, or the task id with ``SUITE/`` (prefixes
    compared whole, not as LIKE patterns: task ids hold underscores, LIKE's wildcard)."""
    task = table.c.task_id
    named: Any = literal(f"{suite}/") + task + literal("/")
    by_run_id = func.substr(table.c.run_id, 1, len(suite) + 2 + func.length(task)) == named
    by_task_id = func.substr(task, 1, len(suite) + 1) == f"{suite}/"
    return or_(by_run_id, by_task_id)
