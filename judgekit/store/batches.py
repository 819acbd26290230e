"""Batches: one evaluation each — when, of what (its key), on which commit and branch — and
the store's methods that find, create or (left empty by a failed recording) remove them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, exists, insert, select

from judgekit.errors import StoreError
from judgekit.store import schema
from judgekit.store.base import StoreBase
from judgekit.store.engine import reading, writing
from judgekit.store.filter_sql import row_conditions
from judgekit.store.migrations import UNBATCHED_KEY
from judgekit.store.run_filter import EVERYTHING, RunFilter
from judgekit.store.statements import insert_ignoring


@dataclass(frozen=True)
class Batch:
    """One evaluation: when, of what (its key), on which commit and branch."""

    id: int
    created_at: datetime
    batch_key: str | None
    source: str | None
    git_sha: str | None
    branch: str | None
    agent_version: str | None
    tags: dict[str, Any] | None

    def as_dict(self) -> dict[str, Any]:
        """The batch as ``judgekit store info --json`` shows it."""
        return {
            "id": self.id,
            "created_at": self.created_at.isoformat(),
            "source": self.source,
            "branch": self.branch,
            "git_sha": self.git_sha,
            "agent_version": self.agent_version,
            "tags": self.tags,
            "batch_key": self.batch_key,
        }


class StoreBatches(StoreBase):
    """The store's batches: found by key, created, listed."""

    def batch(
        self,
        *,
        key: str | None = None,
        source: str | None = None,
        git_sha: str | None = None,
        branch: str | None = None,
        agent_version: str | None = None,
        tags: Mapping[str, Any] | None = None,
    ) -> int:
        """The id of the batch with ``key``, created with these details if it is new (the
        first recording's details stay); without a key, always a new batch."""
        row = {
            "created_at": datetime.now(UTC),
            "batch_key": key,
            "source": source,
            "git_sha": git_sha,
            "branch": branch,
            "agent_version": agent_version,
            "tags": dict(tags) if tags is not None else None,
        }
        table = schema.batches
        with writing(self._engine) as connection:
            if key is not None:
                statement = insert_ignoring(table, ["batch_key"], self._dialect).values(**row)
                created = connection.execute(statement).rowcount == 1
                found = int(
                    connection.execute(
                        select(table.c.id).where(table.c.batch_key == key)
                    ).scalar_one()
                )
                if created:
                    self._created_batches.append(found)
                return found
            # inserted_primary_key, not RETURNING: it also works on SQLite older than 3.35.
            inserted = connection.execute(insert(table).values(**row)).inserted_primary_key
        batch_id = inserted[0] if inserted else None
        if not isinstance(batch_id, int):
            raise StoreError(f"{self.url}: the database returned no id for the new batch")
        self._created_batches.append(batch_id)
        return batch_id

    @property
    def created_batches(self) -> list[int]:
        """The ids of the batches this store object created, oldest first."""
        return list(self._created_batches)

    def remove_empty_batches(self, batch_ids: Sequence[int]) -> int:
        """Remove those of ``batch_ids`` that hold no run, grade or verdict (what a failed
        recording created and left empty), in one statement, so a batch another process
        records in meanwhile stays; returns how many were removed."""
        if not batch_ids:
            return 0
        table = schema.batches
        holders = (schema.runs, schema.grades, schema.verdicts)
        statement = delete(table).where(
            table.c.id.in_(list(batch_ids)),
            *(~exists().where(holder.c.batch_id == table.c.id) for holder in holders),
        )
        with writing(self._engine) as connection:
            removed = connection.execute(statement).rowcount
        self._created_batches = [b for b in self._created_batches if b not in batch_ids]
        return int(removed)

    def new_batch(
        self,
        git_sha: str | None = None,
        agent_version: str | None = None,
        tags: Mapping[str, Any] | None = None,
    ) -> int:
        """Start a new batch (one evaluation session) and return its id."""
        return self.batch(git_sha=git_sha, agent_version=agent_version, tags=tags)

    def find_batch(self, key: str) -> Batch | None:
        """The batch recorded under ``key``, or None."""
        table = schema.batches
        with reading(self._engine) as connection:
            row = connection.execute(select(table).where(table.c.batch_key == key)).mappings()
            found = row.first()
        return None if found is None else Batch(**found)

    def batches(self, *, branch: str | None = None, source: str | None = None) -> list[Batch]:
        """Batches, oldest first, optionally only one branch's or one command's."""
        table = schema.batches
        query = select(table).order_by(table.c.created_at, table.c.id)
        if branch is not None:
            query = query.where(table.c.branch == branch)
        if source is not None:
            query = query.where(table.c.source == source)
        with reading(self._engine) as connection:
            return [Batch(**row) for row in connection.execute(query).mappings()]

    def batch_with_grades(self, reference: str, *, only: RunFilter = EVERYTHING) -> Batch:
        """The batch ``batch:ID``, ``latest:BRANCH`` (the newest batch of that branch that
        holds grades) or ``latest`` (the newest of any branch), or a :class:`StoreError`;
        with ``only``, the newest whose grades it lets through."""
        kind, _, value = reference.partition(":")
        grades = schema.grades
        graded = select(grades.c.batch_id).where(*row_conditions(grades, only)).distinct()
        table = schema.batches
        query = select(table).where(table.c.id.in_(graded))
        if kind == "batch" and value.isdigit():
            query = query.where(table.c.id == int(value))
        elif kind == "latest" and value:
            query = query.where(table.c.branch == value)
        elif reference == "latest":
            pass
        else:
            raise StoreError(
                f"{reference!r} is not a store reference; expected batch:ID or latest:BRANCH "
                "(e.g. latest:main)"
            )
        query = query.order_by(table.c.created_at.desc(), table.c.id.desc()).limit(1)
        with reading(self._engine) as connection:
            row = connection.execute(query).mappings().first()
        if row is None:
            also = "" if only.is_empty else f" {only.describe()}"
            raise StoreError(f"{self.url}: no batch with grades matches {reference}{also}")
        return Batch(**row)

    def _unbatched(self) -> int:
        """The store's one batch of the verdicts recorded without one."""
        return self.batch(key=UNBATCHED_KEY, source="unbatched")
