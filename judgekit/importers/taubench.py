"""``judgekit import taubench``: τ-bench trajectories as runs plus a suite built from their tasks.

τ-bench rewards a run when its database ends as the task's ground-truth actions leave it and
every one of the task's ``outputs`` appears in a message to the user (lower-cased, commas
removed). The suite says the same in judgekit's terms: the ground truth's *write* actions as
expected calls in any order (``order: unordered``), the read-only tools ignored, refused
calls ignored (they changed nothing), the outputs as ``expect_answer``.

Which tools write: those named by the caller, else those of τ-bench's own domain the file's
tools belong to (:mod:`judgekit.importers.taubench_domains`), else inferred from the file as
a last resort (:func:`infer_write_tools`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit.errors import DataError
from judgekit.formats.run import Run
from judgekit.importers.openai_chat import import_openai
from judgekit.importers.taubench_domains import Domain, recognise_domain
from judgekit.importers.taubench_entries import TaubenchEntry, read_taubench_entries
from judgekit.importers.unique_ids import UniqueRunIds

TAUBENCH_NORMALISE = ["lowercase", "remove_commas"]  # τ-bench's rule for its outputs


@dataclass(frozen=True)
class WriteTools:
    """The tools that change τ-bench's data, and where that list came from."""

    tools: frozenset[str]
    source: str  # "retail's own", "--write-tools", "inferred from the file"
    domain: Domain | None = None

    def describe(self) -> str:
        """The console's line, e.g. ``write tools: retail's own (7): cancel_pending_order, …``."""
        line = f"write tools: {self.source} ({len(self.tools)}): {', '.join(sorted(self.tools))}"
        if self.source == INFERRED:
            line += (
                " (no τ-bench domain recognised from the file's tools; name them with "
                "--write-tools)"
            )
        return line


INFERRED = "inferred from the file"


@dataclass(frozen=True)
class TaubenchImport:
    """The runs of a trajectories file, its suite (a dict ready for YAML), the tools' split."""

    runs: list[Run]
    suite: dict[str, Any]
    write_tools: WriteTools
    read_only_tools: list[str]


def import_taubench(
    path: str | Path,
    *,
    run_ids: UniqueRunIds | None = None,
    write_tools: Collection[str] | None = None,
) -> TaubenchImport:
    """Read a τ-bench trajectories file (.json or .json.gz) into runs and a suite.

    Runs are imported as ``judgekit import openai`` does; a run τ-bench never evaluated
    (``reward_info`` null: it hit τ-bench's step limit) gets ``stop_reason: max_turns``, so
    it fails as τ-bench counted it (reward 0). The write tools are ``write_tools`` when
    given, else those of the τ-bench domain the file's tools belong to, else inferred
    (:func:`infer_write_tools`). A malformed entry, or a task whose ground truth differs
    between two entries, raises :class:`judgekit.errors.DataError`.
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
    writes = choose_write_tools(entries, runs, write_tools)
    seen = {a["name"] for e in entries for a in e.actions} | {
        call.name for run in runs for call in run.tool_calls
    }
    read_only = sorted(seen - writes.tools)
    runs_of: dict[str, list[tuple[TaubenchEntry, Run]]] = {}
    for entry, run in zip(entries, runs, strict=True):
        runs_of.setdefault(entry.task_id, []).append((entry, run))
    tasks = [
        _task(entry, writes, read_only, runs_of[entry.task_id])
        for entry in _one_entry_per_task(entries, path)
    ]
    suite = {
        "suite": path.name.removesuffix(".gz").removesuffix(".json"),
        "description": "τ-bench tasks: their ground-truth writes and outputs "
        "(judgekit import taubench)",
        "tasks": tasks,
    }
    return TaubenchImport(runs, suite, writes, read_only)


def choose_write_tools(
    entries: list[TaubenchEntry], runs: list[Run], given: Collection[str] | None
) -> WriteTools:
    """``given`` if any, else the recognised domain's own, else inferred from the file."""
    if given is not None:
        return WriteTools(frozenset(given), "--write-tools")
    domain = recognise_domain(
        {a["name"] for e in entries for a in e.actions},
        {call.name for run in runs for call in run.tool_calls},
    )
    if domain is not None:
        return WriteTools(domain.writes, f"{domain.name}'s own", domain)
    return WriteTools(frozenset(infer_write_tools(entries, runs)), INFERRED)


def infer_write_tools(entries: list[TaubenchEntry], runs: list[Run]) -> set[str]:
    """The tools some ground truth uses, less those the file shows to be read-only.

    The last resort, for a domain that is not τ-bench's own and no ``--write-tools``. A tool
    is read-only when a run whose database τ-bench found right (``r_actions`` 1) made a
    successful call to it that no ground-truth action of its task accounts for, extra keys
    aside, and that no later successful call to the same tool may have overwritten (an
    address set wrong, then right). A ground truth leaving the data untouched is no
    evidence: τ-bench may have refused its write. Tools no ground truth uses are read-only:
    the assumption is that the tasks' ground truths together use every tool that writes.
    """
    read_only: set[str] = set()
    for entry, run in zip(entries, runs, strict=True):
        if not entry.database_matched:
            continue
        succeeded = [call for call in run.tool_calls if call.error is None]
        for number, call in enumerate(succeeded):
            if any(later.name == call.name for later in succeeded[number + 1 :]):
                continue
            if not any(
                a["name"] == call.name and covers(call.args, a["kwargs"]) for a in entry.actions
            ):
                read_only.add(call.name)
    return {a["name"] for e in entries for a in e.actions} - read_only


def covers(given: Any, truth: Any) -> bool:
    """``given`` has every value of ``truth``, keys of objects beyond truth's aside."""
    if isinstance(truth, dict):
        return isinstance(given, dict) and all(
            key in given and covers(given[key], value) for key, value in truth.items()
        )
    if isinstance(truth, list):
        return (
            isinstance(given, list)
            and len(given) == len(truth)
            and all(covers(g, t) for g, t in zip(given, truth, strict=True))
        )
    return bool(given == truth)


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


def _task(
    entry: TaubenchEntry,
    writes: WriteTools,
    read_only: list[str],
    runs: list[tuple[TaubenchEntry, Run]],
) -> dict[str, Any]:
    task: dict[str, Any] = {"id": entry.task_id}
    if entry.instruction is not None:
        task["input"] = entry.instruction
    domain = writes.domain
    truth = [a for a in entry.actions if a["name"] in writes.tools]
    refused = refused_writes(truth, runs, domain)
    task["expect_tools"] = [
        {"name": a["name"], "args": as_hashed(a["name"], a["kwargs"], domain)}
        for number, a in enumerate(truth)
        if number not in refused
    ]
    task["order"] = "unordered"
    task["ignore_tools"] = read_only
    task["ignore_failed_calls"] = True
    if domain is not None:
        task["idempotent_tools"] = sorted(domain.idempotent)
    if entry.outputs:
        task["expect_answer"] = entry.outputs
        task["answer_normalise"] = TAUBENCH_NORMALISE
    return task


def refused_writes(
    truth: list[dict[str, Any]], runs: list[tuple[TaubenchEntry, Run]], domain: Domain | None
) -> set[int]:
    """The ground-truth writes (their positions) that changed nothing when τ-bench replayed them.

    A run whose database τ-bench found right (``r_actions`` 1) left the data as the whole
    ground truth does; a write it has no successful call for (each call standing for one
    write) cannot have changed the data: τ-bench's tool refused it in the replay too.
    """
    refused: set[int] = set()
    for entry, run in runs:
        if not entry.database_matched:
            continue
        unused = [
            _sorted_lists(call.name, call.args, domain)
            for call in run.tool_calls
            if call.error is None
        ]
        names = [call.name for call in run.tool_calls if call.error is None]
        for number, action in enumerate(truth):
            wanted = _sorted_lists(action["name"], action["kwargs"], domain)
            found = next(
                (
                    i
                    for i, args in enumerate(unused)
                    if names[i] == action["name"] and covers(args, wanted)
                ),
                None,
            )
            if found is None:
                refused.add(number)
            else:
                del unused[found], names[found]
    return refused


def _sorted_lists(tool: str, args: dict[str, Any], domain: Domain | None) -> dict[str, Any]:
    """``args`` with the lists ``tool`` stores sorted sorted, as τ-bench's data hash sees them."""
    if domain is None:
        return args
    return {
        key: sorted(value, key=repr)
        if (tool, key) in domain.sorted_list_args and isinstance(value, list)
        else value
        for key, value in args.items()
    }


def as_hashed(tool: str, kwargs: dict[str, Any], domain: Domain | None) -> dict[str, Any]:
    """A ground-truth action's arguments as expected-call matchers, compared as τ-bench hashes.

    A list the tool stores sorted matches in any order (``$unordered``); every other value,
    lists included, must be equal, in order, as τ-bench's ``to_hashable`` keeps lists.

    >>> from judgekit.importers.taubench_domains import DOMAINS
    >>> as_hashed("return_delivered_order_items", {"item_ids": ["2", "1"]}, DOMAINS[1])
    {'item_ids': {'$unordered': ['2', '1']}}
    >>> as_hashed("modify_pending_order_items", {"item_ids": ["2", "1"]}, DOMAINS[1])
    {'item_ids': ['2', '1']}
    """
    sorted_args = domain.sorted_list_args if domain is not None else frozenset()
    return {
        key: {"$unordered": value}
        if (tool, key) in sorted_args and isinstance(value, list) and len(value) > 1
        else value
        for key, value in kwargs.items()
    }
