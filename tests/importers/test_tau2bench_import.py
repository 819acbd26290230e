"""judgekit import tau2bench: a τ²-bench results file as runs and a suite of its tasks.

The tasks are τ²-bench's own airline tasks 3 and 11 (``data/tau2/domains/airline/tasks.json``
of sierra-research/tau2-bench at a2c02472, in ../shared/data/tau2bench/tasks). The simulations
follow τ²-bench's ``Results`` / ``SimulationRun`` / ``Message`` models
(``src/tau2/data_model/simulation.py`` and ``message.py`` at the same commit): the repository's
recorded results files are Git LFS objects, not in its snapshot. The import is compared with
the file parsed here, independently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from judgekit.cli import main
from tests.conftest import shared_data_path

FLIGHTS = [
    {"flight_number": "HAT003", "date": "2024-05-19"},
    {"flight_number": "HAT290", "date": "2024-05-20"},
]
UPDATE = {
    "reservation_id": "GV1N64",
    "cabin": "basic_economy",
    "flights": FLIGHTS,
    "payment_id": "gift_card_1642017",
}


def _tasks() -> list[dict[str, Any]]:
    path = shared_data_path("tau2bench", "tasks", "airline_tasks@a2c02472.json")
    tasks = json.loads(path.read_text(encoding="utf-8"))
    return [task for task in tasks if task["id"] in ("3", "11")]


def _assistant(content: str | None, calls: list[dict[str, Any]], tokens: tuple[int, int]):
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [{**c, "requestor": "assistant"} for c in calls] or None,
        "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]},
        "cost": 0.001,
    }


def _tool(call_id: str, content: str, *, error: bool = False) -> dict[str, Any]:
    return {"role": "tool", "id": call_id, "content": content, "requestor": "assistant",
            "error": error}  # fmt: skip


def _check(name: str, arguments: dict[str, Any], kind: str, match: bool) -> dict[str, Any]:
    action = {"action_id": "x", "requestor": "assistant", "name": name, "arguments": arguments}
    return {"action": action, "action_match": match, "action_reward": float(match),
            "tool_type": kind}  # fmt: skip


def _simulations() -> list[dict[str, Any]]:
    reservation = {"reservation_id": "GV1N64", "cabin": "economy"}
    refund = _simulation(
        "sim-11-0", "11", 0, 1.0, "user_stop",
        [
            _assistant("Hi! How can I help you today?", [], (900, 9)),
            {"role": "user", "content": "I want to downgrade reservation GV1N64."},
            _assistant(None, [{"id": "c1", "name": "get_reservation_details",
                               "arguments": {"reservation_id": "GV1N64"}}], (950, 20)),
            _tool("c1", json.dumps(reservation)),
            _assistant(None, [{"id": "c2", "name": "update_reservation_flights",
                               "arguments": UPDATE}], (1000, 60)),
            _tool("c2", json.dumps({**reservation, "cabin": "basic_economy"})),
            _assistant("Done: a refund of $5,244 goes to your gift card.", [], (1100, 14)),
            {"role": "user", "content": "Thanks! ###STOP###"},
        ],
        [_check("get_reservation_details", {"reservation_id": "GV1N64"}, "read", True),
         _check("update_reservation_flights", UPDATE, "write", True)],
    )  # fmt: skip
    refused = _simulation(
        "sim-3-0", "3", 0, 0.0, "max_steps",
        [
            {"role": "user", "content": "How many suitcases can I bring on JMO1MG?"},
            _assistant(None, [{"id": "d1", "name": "get_reservation_details",
                               "arguments": {"reservation_id": "JMO1MG"}}], (700, 15)),
            _tool("d1", "Error: Reservation JMO1MG not found", error=True),
            _assistant("You can bring 3 suitcases.", [], (760, 8)),
        ],
        [_check("get_reservation_details", {"reservation_id": "JMO1MG"}, "read", False),
         _check("get_user_details", {"user_id": "anya_garcia_5901"}, "read", False)],
    )  # fmt: skip
    return [refund, refused]


def _simulation(
    sim_id: str,
    task_id: str,
    trial: int,
    reward: float,
    reason: str,
    messages: list[dict[str, Any]],
    checks: list[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "id": sim_id,
        "task_id": task_id,
        "timestamp": "2026-08-18T10:00:00",
        "start_time": "2026-08-18T10:00:00",
        "end_time": "2026-08-18T10:00:42",
        "duration": 42.5,
        "termination_reason": reason,
        "agent_cost": 0.0123,
        "user_cost": 0.002,
        "reward_info": {
            "reward": reward,
            "db_check": {"db_match": reward == 1.0, "db_reward": reward},
            "action_checks": checks,
            "communicate_checks": [],
            "reward_basis": ["DB", "COMMUNICATE"],
            "reward_breakdown": {"DB": reward, "COMMUNICATE": reward},
        },
        "messages": messages,
        "trial": trial,
        "seed": 300,
        "mode": "half_duplex",
    }


@pytest.fixture
def results_file(tmp_path: Path) -> Path:
    document = {
        "timestamp": "2026-08-18T10:00:00",
        "info": {"num_trials": 1, "max_steps": 200, "seed": 300},
        "tasks": _tasks(),
        "simulations": _simulations(),
    }
    path = tmp_path / "gpt-4.1_airline.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _import(results_file: Path) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    out = results_file.parent
    result = CliRunner().invoke(
        main,
        ["import", "tau2bench", str(results_file), "-o", str(out / "runs.jsonl"),
         "--suite-out", str(out / "airline.yaml")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = (out / "runs.jsonl").read_text(encoding="utf-8").splitlines()
    suite = yaml.safe_load((out / "airline.yaml").read_text(encoding="utf-8"))
    return [json.loads(line) for line in lines], suite, result.stderr


def _expected_calls(simulation: dict[str, Any]) -> list[dict[str, Any]]:
    """The file's own tool calls, paired with tool messages by id, parsed here."""
    results = {m["id"]: m for m in simulation["messages"] if m["role"] == "tool"}
    calls = []
    for message in simulation["messages"]:
        for call in message.get("tool_calls") or []:
            answer = results[call["id"]]
            done = {"name": call["name"], "args": call["arguments"], "id": call["id"]}
            if answer["error"]:
                done["error"] = answer["content"]
            else:
                done["result"] = json.loads(answer["content"])
            calls.append(done)
    return calls


def test_simulations_become_runs_with_their_calls_results_usage_and_reward(
    results_file: Path,
) -> None:
    runs, _, stderr = _import(results_file)
    document = json.loads(results_file.read_text(encoding="utf-8"))
    assert stderr.splitlines()[0] == (
        f"imported 2 runs with 3 tool calls (1 tool errors, 0 with invalid arguments) "
        f"to {results_file.parent / 'runs.jsonl'}"
    )
    assert [(r["run_id"], r["task_id"], r["trial"]) for r in runs] == [
        (s["id"], s["task_id"], s["trial"]) for s in document["simulations"]
    ]
    for run, simulation in zip(runs, document["simulations"], strict=True):
        said = [
            m["content"]
            for m in simulation["messages"]
            if m["role"] == "assistant" and m["content"]
        ]
        agent = [m for m in simulation["messages"] if m["role"] == "assistant"]
        calls = [
            {k: c.get(k) for k in ("name", "args", "id", "result", "error")}
            for c in run["tool_calls"]
        ]
        assert calls == [
            {"result": None, "error": None, **c} for c in _expected_calls(simulation)
        ]  # fmt: skip
        assert run["input"] == next(
            m["content"] for m in simulation["messages"] if m["role"] == "user"
        )
        assert run["messages_to_user"] == said
        assert run["final_answer"] == said[-1]
        assert run["turns"] == len(agent)
        assert run["usage"] == {
            "input_tokens": sum(m["usage"]["prompt_tokens"] for m in agent),
            "output_tokens": sum(m["usage"]["completion_tokens"] for m in agent),
        }
        assert run["cost_usd"] == simulation["agent_cost"]
        assert run["duration_s"] == simulation["duration"]
        assert run["metadata"]["reward"] == simulation["reward_info"]["reward"]
        assert run["metadata"]["reward_info"] == simulation["reward_info"]
        assert run["metadata"]["termination_reason"] == simulation["termination_reason"]
    assert [r["stop_reason"] for r in runs] == ["completed", "max_turns"]


def test_the_suite_expects_the_gold_writes_and_communicate_info(results_file: Path) -> None:
    _, suite, stderr = _import(results_file)
    tasks = {t["id"]: t for t in _tasks()}
    assert stderr.splitlines()[1] == (
        f"wrote 2 tasks to {results_file.parent / 'airline.yaml'} "
        "(writes: update_reservation_flights)"
    )
    by_id = {t["id"]: t for t in suite["tasks"]}
    assert by_id["11"] == {
        "id": "11",
        "input": tasks["11"]["user_scenario"]["instructions"]["reason_for_call"],
        "expect_tools": [{"name": "update_reservation_flights", "args": UPDATE}],
        "order": "unordered",
        "ignore_tools": ["get_reservation_details", "get_user_details"],
        "ignore_failed_calls": True,
        "expect_answer": tasks["11"]["evaluation_criteria"]["communicate_info"],
        "answer_normalise": ["lowercase", "remove_commas"],
    }
    assert by_id["3"]["expect_tools"] == []
    assert by_id["3"]["expect_answer"] == ["4"]


def test_graded_with_its_suite_each_run_gets_tau2_benchs_verdict(results_file: Path) -> None:
    _import(results_file)
    out = results_file.parent
    result = CliRunner().invoke(
        main,
        ["grade", str(out / "runs.jsonl"), "--tasks", str(out / "airline.yaml"),
         "--out", str(out / "graded")],
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    rows = [
        json.loads(line) for line in (out / "graded" / "results.jsonl").read_text().splitlines()
    ]
    rewards = {s["id"]: s["reward_info"]["reward"] == 1.0 for s in _simulations()}
    assert {row["run_id"]: row["passed"] for row in rows} == rewards


def test_taubench_names_tau2bench_for_a_tau2_results_file(results_file: Path) -> None:
    result = CliRunner().invoke(
        main, ["import", "taubench", str(results_file), "--suite-out", str(results_file) + ".yaml"]
    )
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"judgekit: error: {results_file}: this looks like τ²-bench results; "
        "try `judgekit import tau2bench`"
    )


def test_reading_a_tau2_file_as_taubench_names_tau2bench(results_file: Path) -> None:
    from judgekit.errors import DataError
    from judgekit.importers.taubench import import_taubench

    with pytest.raises(DataError) as raised:
        import_taubench(results_file)
    assert str(raised.value) == (
        f"{results_file}: this looks like τ²-bench results (`simulations`, not a list of "
        "τ-bench runs); try `judgekit import tau2bench`"
    )


def _retail_tasks() -> list[dict[str, Any]]:
    path = shared_data_path("tau2bench", "tasks", "retail_tasks@a2c02472.json")
    tasks = json.loads(path.read_text(encoding="utf-8"))
    return [task for task in tasks if task["id"] in ("2", "21")]


def _gold_write(task: dict[str, Any]) -> dict[str, Any]:
    return task["evaluation_criteria"]["actions"][-1]


def test_lists_compare_as_tau2_benchs_data_hash_sees_them(tmp_path: Path) -> None:
    """τ²-bench's retail tools store a return's ``item_ids`` sorted (``order.return_items =
    sorted(item_ids)``), so a return in another order leaves the same data and earns the reward;
    ``modify_pending_order_items`` pairs ``item_ids[i]`` with ``new_item_ids[i]``, so reversing
    one list alone changes the data and loses it. Rewards set by that rule of τ²-bench's."""
    tasks = {t["id"]: t for t in _retail_tasks()}
    ret, modify = _gold_write(tasks["2"]), _gold_write(tasks["21"])
    assert ret["name"] == "return_delivered_order_items"
    assert modify["name"] == "modify_pending_order_items"
    returned = {**ret["arguments"], "item_ids": ret["arguments"]["item_ids"][::-1]}
    swapped = {**modify["arguments"], "item_ids": modify["arguments"]["item_ids"][::-1]}
    simulations = [
        _simulation("ret", "2", 0, 1.0, "user_stop", [
            {"role": "user", "content": "I want to return three items."},
            _assistant(None, [{"id": "r1", "name": ret["name"], "arguments": returned}], (9, 9)),
            _tool("r1", json.dumps({"status": "return requested"})),
            _assistant("Your return is requested: 10 items in all.", [], (9, 9)),
        ], [_check(ret["name"], ret["arguments"], "write", False)]),
        _simulation("mod", "21", 0, 0.0, "user_stop", [
            {"role": "user", "content": "I want to change two items."},
            _assistant(None, [{"id": "m1", "name": modify["name"], "arguments": swapped}], (9, 9)),
            _tool("m1", json.dumps({"status": "pending (item modified)"})),
            _assistant("Your order is changed; the difference is 44.08.", [], (9, 9)),
        ], [_check(modify["name"], modify["arguments"], "write", False)]),
    ]  # fmt: skip
    document = {
        "info": {"environment_info": {"domain_name": "retail"}},
        "tasks": list(tasks.values()),
        "simulations": simulations,
    }
    path = tmp_path / "retail.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    _, suite, _ = _import(path)
    by_id = {t["id"]: t for t in suite["tasks"]}
    assert by_id["2"]["expect_tools"] == [
        {"name": ret["name"], "args": {**ret["arguments"],
                                       "item_ids": {"$unordered": ret["arguments"]["item_ids"]}}}
    ]  # fmt: skip
    assert by_id["21"]["expect_tools"] == [{"name": modify["name"], "args": modify["arguments"]}]
    result = CliRunner().invoke(
        main,
        ["grade", str(tmp_path / "runs.jsonl"), "--tasks", str(tmp_path / "airline.yaml"),
         "--out", str(tmp_path / "graded")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = (tmp_path / "graded" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert {json.loads(r)["run_id"]: json.loads(r)["passed"] for r in rows} == {
        "ret": True,
        "mod": False,
    }
