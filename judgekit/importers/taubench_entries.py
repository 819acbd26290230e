"""τ-bench trajectory entries: each run's task (ground truth) and τ-bench's verdict, checked.

A τ-bench trajectories file is one JSON list; each entry has ``task_id``, ``trial``,
``reward``, ``traj`` (the conversation) and ``info`` with ``task`` (``actions``: the
ground-truth calls ``{name, kwargs}``; ``outputs``: values the agent must tell the user;
``instruction``) and ``reward_info`` (null when τ-bench never evaluated the run).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit._util.jsonl import read_json_document
from judgekit.errors import DataError
from judgekit.importers.locations import Location, as_object, describe_json, optional_string


@dataclass(frozen=True)
class TaubenchEntry:
    """One run's task and verdict as τ-bench recorded them."""

    index: int
    task_id: str
    actions: list[dict[str, Any]]
    outputs: list[str]
    instruction: str | None
    reward_info: dict[str, Any] | None

    @property
    def evaluated(self) -> bool:
        return self.reward_info is not None

    @property
    def database_matched(self) -> bool:
        """τ-bench found the run's database equal to the one its ground truth leaves.

        Its ``info`` says ``r_actions`` 1 for a task without outputs; for one with outputs
        τ-bench keeps only the outputs' verdict there, and a reward of 1 says both held.
        """
        info = (self.reward_info or {}).get("info")
        return (self.reward_info or {}).get("reward") == 1.0 or (
            isinstance(info, dict) and info.get("r_actions") == 1.0
        )


def read_taubench_entries(path: Path) -> list[TaubenchEntry]:
    """Every entry of a τ-bench trajectories file (.json or .json.gz), validated."""
    document = _load(path)
    if isinstance(document, dict) and "simulations" in document:
        raise DataError(
            "this looks like τ²-bench results (`simulations`, not a list of τ-bench runs); "
            "try `judgekit import tau2bench`",
            path=path,
        )
    if not isinstance(document, list):
        raise DataError(
            f"expected a JSON list of τ-bench runs, got {describe_json(document)}", path=path
        )
    return [
        _entry(value, index, Location(path).item(index)) for index, value in enumerate(document)
    ]


def _load(path: Path) -> Any:
    return read_json_document(path, expected="expected τ-bench's JSON list")


def _entry(value: Any, index: int, where: Location) -> TaubenchEntry:
    entry = as_object(value, where, "a τ-bench run object with `task_id`, `traj` and `info`")
    task_id = entry.get("task_id")
    if isinstance(task_id, bool) or not isinstance(task_id, int | str) or task_id == "":
        raise where.key("task_id").error(
            f"expected the task's number or name, got {describe_json(task_id)}"
        )
    info_where = where.key("info")
    info = as_object(entry.get("info"), info_where, "an object with `task` and `reward_info`")
    task_where = info_where.key("task")
    task = as_object(info.get("task"), task_where, "an object with `actions` and `outputs`")
    reward_info = info.get("reward_info")
    if reward_info is not None:
        as_object(reward_info, info_where.key("reward_info"), "an object or null")
    return TaubenchEntry(
        index=index,
        task_id=str(task_id),
        actions=_actions(task.get("actions"), task_where.key("actions")),
        outputs=_outputs(task.get("outputs"), task_where.key("outputs")),
        instruction=optional_string(task, "instruction", task_where),
        reward_info=reward_info,
    )


def _actions(value: Any, where: Location) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise where.error(
            f"expected a list of {{name, kwargs}} actions, got {describe_json(value)}"
        )
    actions = []
    for number, item in enumerate(value):
        item_where = where.item(number)
        action = as_object(item, item_where, "an action object {name, kwargs}")
        name = action.get("name")
        if not isinstance(name, str) or not name:
            raise item_where.key("name").error(
                f"expected the tool's name, got {describe_json(name)}"
            )
        kwargs = action.get("kwargs", {})
        as_object(kwargs, item_where.key("kwargs"), "an object of arguments")
        actions.append({"name": name, "kwargs": kwargs})
    return actions


def _outputs(value: Any, where: Location) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise where.error(f"expected a list of strings, got {describe_json(value)}")
    for number, item in enumerate(value):
        if not isinstance(item, str):
            raise where.item(number).error(f"expected a string, got {describe_json(item)}")
    return value
