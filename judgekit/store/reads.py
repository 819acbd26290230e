"""The store's reads of what it recorded: verdicts, runs and grades as judgekit's own models,
promotion events, and row counts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, TypeVar

from pydantic import BaseModel, ValidationError
from sqlalchemy import func, select

from judgekit.errors import StoreError
from judgekit.formats.grade import Grade
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.store import schema
from judgekit.store.base import StoreBase
from judgekit.store.engine import reading
from judgekit.store.filter_sql import row_conditions
from judgekit.store.run_filter import EVERYTHING, RunFilter

# Run ids per IN (...) query: PostgreSQL takes at most 65,535 parameters a statement.
IDS_PER_QUERY: Final = 10_000

Model = TypeVar("Model", bound=BaseModel)


class StoreReads(StoreBase):
    """The store's reads that return verdicts, runs and grades."""

    def verdicts(
        self,
        rubric_id: str,
        *,
        rubric_version: str | None = None,
        model: str | None = None,
        history: bool = False,
    ) -> list[Verdict]:
        """A rubric's verdicts, oldest first, optionally of one rubric version and judge model.

        A run judged again in a later batch (the same run id, version and model) counts
        once, by its latest verdict, unless ``history`` asks for every one.
        """
        table = schema.verdicts
        query = select(table).where(table.c.rubric_id == rubric_id)
        if rubric_version is not None:
            query = query.where(table.c.rubric_version == rubric_version)
        if model is not None:
            query = query.where(table.c.model == model)
        query = query.order_by(table.c.at, table.c.id)
        with reading(self._engine) as connection:
            rows = connection.execute(query).mappings().all()
        drop = ("id", "batch_id", "score_value", "day")
        found = [self._model(Verdict, "verdicts", dict(row), drop) for row in rows]
        if history:
            return found
        latest: dict[tuple[str, str, str], Verdict] = {}
        for verdict in found:  # oldest first: the last one seen wins
            latest[(verdict.run_id, verdict.rubric_version, verdict.model)] = verdict
        return sorted(latest.values(), key=lambda v: v.at)

    def runs(self, run_ids: Iterable[str] | None = None) -> dict[str, Run]:
        """Stored runs by run id, the latest recording of each (optionally only some ids)."""
        table = schema.runs
        query = select(table.c.id, table.c.data).order_by(table.c.at, table.c.id)
        queries = [query]
        if run_ids is not None:
            # Some ids per query: each id in IN (...) is a parameter, and PostgreSQL refuses a
            # statement with more than 65,535 ("number of parameters must be between 0 and
            # 65535"). A run id is in one part only, so each part finds its latest recordings.
            wanted = sorted(set(run_ids))
            queries = [
                query.where(table.c.run_id.in_(wanted[start : start + IDS_PER_QUERY]))
                for start in range(0, len(wanted), IDS_PER_QUERY)
            ]
        found: dict[str, Run] = {}
        with reading(self._engine) as connection:
            for part in queries:
                for row in connection.execute(part).mappings():
                    run = self._model(Run, "runs", row["data"] | {"_row": row["id"]}, ("_row",))
                    found[run.run_id] = run
        return found

    def grades(self, batch_id: int, *, only: RunFilter = EVERYTHING) -> list[Grade]:
        """The grades of one batch (those ``only`` lets through), in recorded order."""
        table = schema.grades
        query = select(table.c.id, table.c.data).where(
            table.c.batch_id == batch_id, *row_conditions(table, only)
        )
        with reading(self._engine) as connection:
            rows = connection.execute(query.order_by(table.c.id)).mappings().all()
        return [
            self._model(Grade, "grades", r["data"] | {"_row": r["id"]}, ("_row",)) for r in rows
        ]

    def grade_count(self, batch_id: int) -> int:
        """How many grades one batch holds (counted in SQL: none is read)."""
        table = schema.grades
        query = select(func.count()).select_from(table).where(table.c.batch_id == batch_id)
        with reading(self._engine) as connection:
            return int(connection.execute(query).scalar_one())

    def run_shards(self, batch_id: int) -> dict[str, str | None]:
        """The shard ("I/N") that recorded each run of one batch, by run id; None for a
        run recorded whole."""
        table = schema.runs
        query = select(table.c.run_id, table.c.shard).where(table.c.batch_id == batch_id)
        with reading(self._engine) as connection:
            rows = connection.execute(query.order_by(table.c.id)).all()
        return {run_id: shard for run_id, shard in rows}

    def promotions(self, rubric_id: str) -> list[dict[str, Any]]:
        """A rubric's promotion events, oldest first: each one's ``status`` (promoted, or
        stale after a recheck), ``at`` and ``data`` (the record as written)."""
        table = schema.promotions
        query = (
            select(table.c.status, table.c.at, table.c.data)
            .where(table.c.rubric_id == rubric_id)
            .order_by(table.c.at, table.c.id)
        )
        with reading(self._engine) as connection:
            return [dict(row) for row in connection.execute(query).mappings()]

    def count(self, table_name: str) -> int:
        """How many rows a table holds (for reports and tests)."""
        table = schema.metadata.tables[table_name]
        with reading(self._engine) as connection:
            return int(connection.execute(select(func.count()).select_from(table)).scalar_one())

    def _model(
        self, model: type[Model], table: str, row: Mapping[str, Any], drop: Sequence[str]
    ) -> Model:
        fields = {k: v for k, v in row.items() if k not in drop}
        try:
            return model.model_validate(fields)
        except ValidationError as exc:
            where = row.get("id", row.get("_row"))
            raise StoreError(
                f"{self.url}: {table} row {where} is not a valid {model.__name__.lower()}: "
                f"{exc.errors()[0]['msg']}"
            ) from exc
