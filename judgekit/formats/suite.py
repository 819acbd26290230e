"""A suite file's model, and the set of tasks loaded from one or more suites."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judgekit._util.canonical_json import json_digest
from judgekit._util.yamlfile import LineMap
from judgekit.errors import DataError
from judgekit.formats.task_model import Task

__all__ = ["Suite", "TaskSet", "suite_sha256"]


class Suite(BaseModel):
    """A task suite file."""

    model_config = ConfigDict(extra="forbid")

    suite: str = Field(min_length=1)
    description: str | None = None
    defaults: dict[str, Any] = Field(
        default_factory=dict,
        description="Task fields applied to every task that does not set them.",
    )
    initial_state: dict[str, Any] | None = None
    tools: str | None = Field(
        default=None, description="module:NAME of a dict tool name -> function(state, **args)."
    )
    tasks: list[Task]


class TaskSet:
    """Tasks loaded from one or more suite files, looked up by id (or ``suite/id``)."""

    def __init__(self) -> None:
        self.suites: list[Suite] = []
        self._by_id: dict[str, Task] = {}
        # Each task's file, that file's lines and the task's index there: the line of its id
        # is looked up only to word an error (most files' lines are read only then).
        self._origin: dict[str, tuple[Path, LineMap, int]] = {}

    def add(self, suite: Suite, path: Path, lines: LineMap) -> None:
        for index, task in enumerate(suite.tasks):
            if task.id in self._by_id:
                first_path, first_lines, first_index = self._origin[task.id]
                first_line = first_lines.line_of(("tasks", first_index, "id"))
                first = f"{first_path}:{first_line}" if first_line else str(first_path)
                raise DataError(
                    f"task id {task.id!r} is defined twice (first at {first}); ids must be unique",
                    path=path,
                    line=lines.line_of(("tasks", index, "id")),
                    field=f"tasks[{index}].id",
                )
            self._by_id[task.id] = task
            self._origin[task.id] = (path, lines, index)
        self.suites.append(suite)

    def suite_of(self, task: Task) -> Suite:
        """The suite a loaded task came from."""
        return next(suite for suite in self.suites if suite.suite == task.suite)

    def get(self, task_id: str | None) -> Task | None:
        """The task of this id (``suite/id`` too); None for an unknown id, or for a run
        that names no task (``task_id`` None)."""
        if task_id is None:
            return None
        task = self._by_id.get(task_id)
        if task is None and "/" in task_id:
            suite, _, bare = task_id.partition("/")
            candidate = self._by_id.get(bare)
            if candidate is not None and candidate.suite == suite:
                return candidate
        return task

    def __iter__(self) -> Iterator[Task]:
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, task_id: object) -> bool:
        return isinstance(task_id, str) and self.get(task_id) is not None


def suite_sha256(tasks: TaskSet) -> str:
    """The sha256 of the suites' content as loaded (defaults applied, in load order): the
    same on every machine for the same suites, whatever their files' layout or comments,
    and different once a task, a default or an expectation changes."""
    return json_digest([suite.model_dump(mode="json") for suite in tasks.suites])
