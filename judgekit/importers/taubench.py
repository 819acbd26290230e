"""``judgekit import taubench``: τ-bench trajectories as runs plus a suite built from their tasks.

τ-bench rewards a run when its database ends as the task's ground-truth actions leave it and
every one of the task's ``outputs`` appears in a message to the user (lower-cased, commas
removed). The suite says the same in judgekit's terms: the ground truth's *write* actions as
expected calls in any order (``order: unordered``), the read-only tools ignored, refused
calls ignored (they changed nothing), the outputs as ``expect_answer``.

Which tools write is read from the file itself, no list per domain (see :func:`write_tools`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit.errors import DataError
from judgekit.formats.run import Run
from judgekit.importers.openai_chat import import_openai
from judgekit.importers.taubench_entries import TaubenchEntry, read_taubench_entries
from judgekit.importers.unique_ids import UniqueRunIds

TAUBENCH_NORMALISE = ["lowercase", "remove_commas"]  # τ-bench's rule for its outputs


@dataclass(frozen=True)
class TaubenchImport:
    """The runs of a trajectories file, its suite (a dict ready for YAML), the tools' split."""

    runs: list[Run]
    suite: dict[str, Any]
    write_tools: list[str]
    read_only_tools: list[str]


def import_taubench(path: str | Path, *, run_ids: UniqueRunIds | None = None) -> TaubenchImport:
    """Read a τ-bench trajectories file (.json or .json.gz) into runs and a suite.

    Runs are imported as ``judgekit import openai`` does; a run τ-bench never evaluated
    (``reward_info`` null: it hit τ-bench's step limit) gets ``stop_reason: max_turns``, so
    it fails as τ-bench counted it (reward 0). A malformed entry, or a task whose ground
    truth differs between two entries, raises :class:`judgekit.errors.DataError`.
    """
    path = Path(path)
    entries = read_taubench_entries(path)
    runs = list(import_openai(path, run_ids=run_ids))
    if len(runs) != len(entries):  # a file import_openai reads differently: not τ-bench's list
        raise DataError(
            f"expected one conversation per entry, got {len(runs)} for {len(entries)} entries",
            path=path,
        )
    runs = [
        run if entry.evaluated else run.model_copy(update={"stop_reason": "max_turns"})
        for run, entry in zip(runs, entries, strict=True)
    ]
    writes = write_tools(entries, runs)
    seen = {a["name"] for e in entries for a in e.actions} | {
        call.name for run in runs for call in run.tool_calls
    }
    read_only = sorted(seen - writes)
    tasks = [_task(entry, writes, read_only) for entry in _one_entry_per_task(entries, path)]
    suite = {
        "suite": path.name.removesuffix(".gz").removesuffix(".json"),
        "description": "τ-bench tasks: their ground-truth writes and outputs "
        "(judgekit import taubench)",
        "tasks": tasks,
    }
    return TaubenchImport(runs, suite, sorted(writes), read_only)


def write_tools(entries: list[TaubenchEntry], runs: list[Run]) -> set[str]:
    """The tools some ground truth uses, less those the file shows to be read-only.

    A tool is read-only when (a) it is in the ground truth of a task whose ``gt_data_hash``
    is that of a task with no actions (replaying it left the database untouched), or (b) a
    run whose database τ-bench found right (``r_actions`` 1) made a successful call to it
    that no ground-truth action of its task accounts for (the call changed nothing); a call
    is accounted for when it has the action's arguments, extra keys aside, as τ-bench's
    tools ignore them.
    Tools no ground truth uses are read-only: the assumption is that the tasks' ground
    truths together use every tool that writes.
    """
    untouched = {_data_hash(e) for e in entries if not e.actions} - {None}
    read_only = {a["name"] for e in entries if _data_hash(e) in untouched for a in e.actions}
    for entry, run in zip(entries, runs, strict=True):
        if entry.database_matched:
            read_only.update(
                call.name
                for call in run.tool_calls
                if call.error is None
                and not any(
                    a["name"] == call.name and _covers(call.args, a["kwargs"])
                    for a in entry.actions
                )
            )
    return {a["name"] for e in entries for a in e.actions} - read_only


def _covers(given: Any, truth: Any) -> bool:
    """``given`` has every value of ``truth``, keys of objects beyond truth's aside."""
    if isinstance(truth, dict):
        return isinstance(given, dict) and all(
            key in given and _covers(given[key], value) for key, value in truth.items()
        )
    if isinstance(truth, list):
        return (
            isinstance(given, list)
            and len(given) == len(truth)
            and all(_covers(g, t) for g, t in zip(given, truth, strict=True))
        )
    return bool(given == truth)


def _data_hash(entry: TaubenchEntry) -> str | None:
    info = (entry.reward_info or {}).get("info")
    value = info.get("gt_data_hash") if isinstance(info, dict) else None
    return value if isinstance(value, str) else None


def _one_entry_per_task(entries: list[TaubenchEntry], path: Path) -> Iterable[TaubenchEntry]:
    first: dict[str, TaubenchEntry] = {}
    for entry in entries:
        seen = first.setdefault(entry.task_id, entry)
        for field in ("actions", "outputs"):
            if getattr(seen, field) != getattr(entry, field):
                raise DataError(
                    f"task {entry.task_id} has a different ground truth here than in entry "
                    f"[{seen.index}]; every run of a task must carry the same one",
                    path=path,
                    field=f"[{entry.index}].info.task.{field}",
                )
    return first.values()


def _task(entry: TaubenchEntry, writes: set[str], read_only: list[str]) -> dict[str, Any]:
    task: dict[str, Any] = {"id": entry.task_id}
    if entry.instruction is not None:
        task["input"] = entry.instruction
    task["expect_tools"] = [
        {"name": a["name"], "args": {k: order_free(v) for k, v in a["kwargs"].items()}}
        for a in entry.actions
        if a["name"] in writes
    ]
    task["order"] = "unordered"
    task["ignore_tools"] = read_only
    task["ignore_failed_calls"] = True
    if entry.outputs:
        task["expect_answer"] = entry.outputs
        task["answer_normalise"] = TAUBENCH_NORMALISE
    return task


def order_free(value: Any) -> Any:
    """A list of ids (two or more strings or numbers) as ``$unordered``, else the value as is.

    τ-bench's tools store such lists sorted (retail's ``item_ids``), so any order leaves the
    same database; lists of objects (flights, passengers, payments) keep their order.

    >>> order_free(["b", "a"]), order_free([{"x": 1}]), order_free("a")
    ({'$unordered': ['b', 'a']}, [{'x': 1}], 'a')
    """
    if (
        isinstance(value, list)
        and len(value) > 1
        and all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value)
    ):
        return {"$unordered": value}
    return value
