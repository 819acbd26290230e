"""``judgekit import tau2bench``: τ²-bench results files as runs plus a suite built from their tasks.

A results file (``tau2 run --save-to``) is one JSON object: ``tasks`` (each with
``evaluation_criteria``: gold ``actions`` ``{name, arguments, requestor, compare_args}``,
``communicate_info``, ``reward_basis``) and ``simulations`` (``id``, ``task_id``, ``trial``,
``messages``, ``reward_info``, ``termination_reason``, ``agent_cost``, ``duration``).

A simulation is one run: the agent's tool calls (``requestor`` assistant) with the ``tool``
message of the same ``id`` as result (``error`` flags a failure), its text messages as what it
told the user, the last one the final answer, its messages' ``usage`` summed. τ²-bench's
verdict is kept in ``metadata`` (``reward``, ``reward_info``, ``termination_reason``).

The suite says what τ²-bench checks in judgekit's terms: the gold *write* actions of the agent
as expected calls in any order (only their ``compare_args`` when the task names them), the
other tools ignored, refused calls ignored, ``communicate_info`` as ``expect_answer`` with
τ²-bench's rule (lowercase, commas removed). Which tools write is read from the file: the
``tool_type`` its ``action_checks`` record; for a tool it never types, the domain's own
(airline and retail write the same tools as τ-bench's, ``@is_tool(ToolType.WRITE)`` in τ²-bench's
``tools.py``); a gold action's tool neither types is expected.
Arguments compare as τ²-bench's data hash sees them (``json.dumps`` with sorted keys, lists in
order), except the lists its retail tools store sorted (``exchange_items``, ``return_items``:
``src/tau2/domains/retail/tools.py``), which match in any order; the domain is the file's
``info.environment_info.domain_name``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgekit._util.jsonl import read_json_document
from judgekit.errors import DataError
from judgekit.formats.run import Run, StopReason, ToolCall, Usage
from judgekit.importers.interface import Importer, ImportOptions
from judgekit.importers.locations import Location, as_object, describe_json, required_string
from judgekit.importers.run_draft import NO_ERROR_TEXT, new_tool_call, parse_result
from judgekit.importers.taubench import TAUBENCH_NORMALISE, as_hashed
from judgekit.importers.taubench_domains import DOMAINS, Domain
from judgekit.importers.unique_ids import UniqueRunIds

__all__ = ["IMPORTER", "Tau2benchImport", "import_tau2bench", "looks_like_tau2bench"]

# τ²-bench's termination reasons as judgekit stop reasons (any other reason: error).
_STOP_REASONS: dict[str, StopReason] = {
    "user_stop": "completed",
    "agent_stop": "completed",
    "max_steps": "max_turns",
    "timeout": "timeout",
}


# The read tools τ²-bench's airline and retail have beyond τ-bench's (``ToolType.READ``).
_TAU2_ONLY_READS = {
    "airline": frozenset({"get_flight_status"}),
    "retail": frozenset({"get_item_details"}),
}


@dataclass(frozen=True)
class Tau2benchImport:
    """The runs of a results file, its suite (a dict ready for YAML), the tools that write."""

    runs: list[Run]
    suite: dict[str, Any]
    write_tools: list[str]


def looks_like_tau2bench(head: object) -> bool:
    return (
        isinstance(head, dict)
        and isinstance(head.get("simulations"), list)
        and isinstance(head.get("tasks"), list)
    )


def import_tau2bench(path: str | Path, *, run_ids: UniqueRunIds | None = None) -> Tau2benchImport:
    """Read a τ²-bench results file into runs and a suite; a malformed simulation or task
    raises :class:`judgekit.errors.DataError` naming its place in the file."""
    path = Path(path)
    document = read_json_document(path, expected="expected τ²-bench's results object")
    where = Location(path)
    if not looks_like_tau2bench(document):
        raise DataError(
            "expected τ²-bench results: an object with `tasks` and `simulations` lists, got "
            f"{describe_json(document)}",
            path=path,
        )
    simulations = [
        as_object(value, where.key("simulations").item(i), "a simulation object")
        for i, value in enumerate(document["simulations"])
    ]
    runs = [_run(s, where.key("simulations").item(i)) for i, s in enumerate(simulations)]
    if run_ids is not None:
        runs = list(run_ids.apply(runs))
    raw_tasks = [
        _checked_task(value, where.key("tasks").item(i))
        for i, value in enumerate(document["tasks"])
    ]
    domain = _domain(document)
    writes = _write_tools(simulations, raw_tasks, domain)
    seen = {a["name"] for _, gold in raw_tasks for a in gold} | {
        call.name for run in runs for call in run.tool_calls
    }
    read_only = sorted(seen - writes)
    suite = {
        "suite": path.name.removesuffix(".gz").removesuffix(".json"),
        "description": "τ²-bench tasks: their gold writes and communicate_info "
        "(judgekit import tau2bench)",
        "tasks": [_task(task, gold, writes, read_only, domain) for task, gold in raw_tasks],
    }
    return Tau2benchImport(runs, suite, sorted(writes))


def _run(simulation: dict[str, Any], where: Location) -> Run:
    sim_id = required_string(simulation, "id", where)
    task_id = required_string(simulation, "task_id", where)
    messages = simulation.get("messages") or []
    if not isinstance(messages, list):
        raise where.key("messages").error(f"expected a list, got {describe_json(messages)}")
    objects = [as_object(m, where.key("messages").item(i)) for i, m in enumerate(messages)]
    agent = [m for m in objects if m.get("role") == "assistant"]
    said = [m["content"] for m in agent if isinstance(m.get("content"), str) and m["content"]]
    first_user = next((m.get("content") for m in objects if m.get("role") == "user"), None)
    reward_info = simulation.get("reward_info")
    reason = simulation.get("termination_reason")
    return Run(
        run_id=sim_id,
        task_id=task_id,
        trial=_number(simulation.get("trial"), int),
        input=first_user if isinstance(first_user, str) else None,
        tool_calls=_tool_calls(objects, where.key("messages")),
        final_answer=said[-1] if said else None,
        messages_to_user=said,
        turns=len(agent),
        usage=_usage(agent),
        cost_usd=_number(simulation.get("agent_cost"), float),
        duration_s=_number(simulation.get("duration"), float),
        stop_reason=_STOP_REASONS.get(reason, "error") if isinstance(reason, str) else None,
        metadata={
            "reward": reward_info.get("reward") if isinstance(reward_info, dict) else None,
            "reward_info": reward_info,
            "termination_reason": reason,
            "user_cost": simulation.get("user_cost"),
        },
    )


def _tool_calls(messages: list[dict[str, Any]], where: Location) -> list[ToolCall]:
    """The agent's calls in order, each with the result of the tool message of its id."""
    results: dict[str, dict[str, Any]] = {}
    for message in messages:
        if message.get("role") == "tool":
            for part in message.get("tool_messages") or [message]:
                if isinstance(part, dict) and isinstance(part.get("id"), str):
                    results.setdefault(part["id"], part)
    calls = []
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        for number, call in enumerate(message.get("tool_calls") or []):
            call_where = where.item(index).key("tool_calls").item(number)
            call = as_object(call, call_where, "a tool call {id, name, arguments}")
            name = call.get("name")
            if not isinstance(name, str) or not name:
                raise call_where.key("name").error(
                    f"expected the tool's name, got {describe_json(name)}"
                )
            call_id = call.get("id") if isinstance(call.get("id"), str) else None
            made = new_tool_call(name, call.get("arguments"), call_id or None)
            calls.append(_with_result(made, results.get(call_id or "")))
    return calls


def _with_result(call: ToolCall, message: dict[str, Any] | None) -> ToolCall:
    if message is None:
        return call
    content = message.get("content")
    text = content if isinstance(content, str) else None
    if message.get("error") is True:
        return call.model_copy(update={"error": text or NO_ERROR_TEXT})
    return call.model_copy(update={"result": parse_result(text)})


def _usage(agent_messages: list[dict[str, Any]]) -> Usage | None:
    counted = [m["usage"] for m in agent_messages if isinstance(m.get("usage"), dict)]
    if not counted:
        return None
    return Usage(
        input_tokens=sum(_number(u.get("prompt_tokens"), int) or 0 for u in counted),
        output_tokens=sum(_number(u.get("completion_tokens"), int) or 0 for u in counted),
    )


def _number(value: Any, kind: type[int] | type[float]) -> Any:
    """``value`` as ``kind`` when it is a number (not a boolean) of that kind, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if kind is int:
        return value if isinstance(value, int) else None
    return float(value)


def _write_tools(
    simulations: list[dict[str, Any]],
    tasks: list[tuple[dict[str, Any], list[dict[str, Any]]]],
    domain: Domain | None,
) -> set[str]:
    """The tools the ``action_checks`` type ``write``; of the agent's gold tools they never
    type, the domain's writes and the tools the domain does not have (assumed to write, so
    expected)."""
    types: dict[str, str] = {}
    for simulation in simulations:
        info = simulation.get("reward_info")
        checks = info.get("action_checks") if isinstance(info, dict) else None
        for check in checks if isinstance(checks, list) else []:
            action = check.get("action") if isinstance(check, dict) else None
            kind = check.get("tool_type") if isinstance(check, dict) else None
            if isinstance(action, dict) and isinstance(action.get("name"), str) and kind:
                types.setdefault(action["name"], str(kind))
    untyped = {a["name"] for _, gold in tasks for a in gold if _by_agent(a)} - types.keys()
    if domain is not None:
        untyped -= domain.read_only | _TAU2_ONLY_READS.get(domain.name, frozenset())
    return {n for n, kind in types.items() if kind == "write"} | untyped


def _by_agent(action: dict[str, Any]) -> bool:
    return bool(action.get("requestor", "assistant") == "assistant")


def _checked_task(value: Any, where: Location) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A task and its gold actions, each with a tool name and an arguments object."""
    task = as_object(value, where, "a task object with `id` and `evaluation_criteria`")
    task_id = task.get("id")
    if not isinstance(task_id, str) or not task_id:
        raise where.key("id").error(f"expected the task's id, got {describe_json(task_id)}")
    criteria_where = where.key("evaluation_criteria")
    criteria = as_object(task.get("evaluation_criteria") or {}, criteria_where)
    actions = criteria.get("actions") or []
    gold = []
    for number, item in enumerate(actions if isinstance(actions, list) else [actions]):
        item_where = criteria_where.key("actions").item(number)
        action = as_object(item, item_where, "an action {name, arguments}")
        if not isinstance(action.get("name"), str) or not action["name"]:
            raise item_where.key("name").error(
                f"expected the tool's name, got {describe_json(action.get('name'))}"
            )
        as_object(action.get("arguments") or {}, item_where.key("arguments"))
        gold.append(action)
    return task, gold


def _domain(document: dict[str, Any]) -> Domain | None:
    """The τ-bench domain of the file's ``domain_name`` (airline, retail), else None."""
    info = document.get("info")
    environment = info.get("environment_info") if isinstance(info, dict) else None
    name = environment.get("domain_name") if isinstance(environment, dict) else None
    return next((domain for domain in DOMAINS if domain.name == name), None)


def _task(
    task: dict[str, Any],
    gold: list[dict[str, Any]],
    writes: set[str],
    read_only: list[str],
    domain: Domain | None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"id": task["id"]}
    instructions = (task.get("user_scenario") or {}).get("instructions")
    if isinstance(instructions, dict) and isinstance(instructions.get("reason_for_call"), str):
        out["input"] = instructions["reason_for_call"]
    out["expect_tools"] = [
        _expected_call(a, domain) for a in gold if _by_agent(a) and a["name"] in writes
    ]
    out["order"] = "unordered"
    out["ignore_tools"] = read_only
    out["ignore_failed_calls"] = True
    info = (task.get("evaluation_criteria") or {}).get("communicate_info") or []
    if info:
        out["expect_answer"] = [str(item) for item in info]
        out["answer_normalise"] = TAUBENCH_NORMALISE
    return out


def _expected_call(action: dict[str, Any], domain: Domain | None) -> dict[str, Any]:
    arguments = action.get("arguments") or {}
    compared = action.get("compare_args")
    if isinstance(compared, list):
        arguments = {k: v for k, v in arguments.items() if k in compared}
    return {"name": action["name"], "args": as_hashed(action["name"], arguments, domain)}


def _read(path: Path, options: ImportOptions) -> Iterator[Run]:
    return iter(import_tau2bench(path, run_ids=options.run_ids).runs)


IMPORTER = Importer(
    "tau2bench",
    "τ²-bench results",
    looks_like_tau2bench,
    _read,
    details="A results file of `tau2 run` (`tasks` and `simulations`): each simulation one run.",
)
