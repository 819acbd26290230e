"""judgekit import taubench on retail runs of every mistake kind, against τ-bench's reward rule.

The runs are built here on three of τ-bench's retail test tasks (read from
``../shared/data/taubench/tasks/retail_test@7362a170.json``, τ-bench's ``tasks_test.py``).
τ-bench's rule (``tau_bench/envs/base.py``, ``calculate_reward``): reward 1 when the data the
run's calls leave hashes as the data the task's ground-truth actions leave when replayed
(``to_hashable``: dict keys sorted, lists in order), and every one of the task's ``outputs``
is in a message to the user, lower-cased, commas removed. A call the tool refuses
("Error: ...") changes nothing. Each run's reward below follows from that rule and what the
retail tool files do (``tau_bench/envs/retail/tools/*.py``); each is stated beside it.
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

RETAIL_WRITES = [
    "cancel_pending_order",
    "exchange_delivered_order_items",
    "modify_pending_order_address",
    "modify_pending_order_items",
    "modify_pending_order_payment",
    "modify_user_address",
    "return_delivered_order_items",
]
OK = "{}"  # what a successful call answered does not matter to either verdict
NOT_DELIVERED = "Error: non-delivered order cannot be exchanged"  # exchange_delivered_order_items
SWAPPED = "Error: new item 7160999700 not found or available"  # modify_pending_order_items


def _tasks() -> dict[int, dict[str, Any]]:
    path = shared_data_path("taubench", "tasks", "retail_test@7362a170.json")
    return {task["task_index"]: task for task in json.loads(path.read_text(encoding="utf-8"))}


def _writes(task: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in task["actions"] if a["name"] in RETAIL_WRITES]


def _call(
    action: dict[str, Any], answer: str = OK, **changed: Any
) -> tuple[str, dict[str, Any], str]:
    return action["name"], {**action["kwargs"], **changed}, answer


def _runs(tasks: dict[int, dict[str, Any]]) -> list[tuple[int, list[Any], str, float, str]]:
    """(task, calls, message to the user, τ-bench's reward, why) for every constructed run."""
    r1, r2, address, items = _writes(tasks[104])  # return, return, address, items (in order)
    said = "Your tracking number is 286422338955."  # task 104's one output
    read = ("get_order_details", {"order_id": "#W4860251"}, OK)
    m2, r3 = _writes(tasks[101])
    exchange, modify = _writes(tasks[64])
    return [
        (104, [read, _call(r1), _call(r2), _call(address), _call(items)], said, 1.0, "right"),
        (
            104,
            [read, _call(r1), _call(r2), _call(items)],
            said,
            0.0,
            "dropped write: the order keeps its old address",
        ),
        (104, [read], said, 0.0, "no writes: the data is left as it was"),
        (
            104,
            [_call(r1), _call(r2), _call(address, zip="60613"), _call(items)],
            said,
            0.0,
            "wrong arguments: another zip is stored",
        ),
        (
            104,
            [_call(r1), _call(r2), _call(address), _call(address), _call(items)],
            said,
            1.0,
            "repeated write: the same address set twice leaves the same order",
        ),
        (
            104,
            [
                _call(r1, item_ids=r1["kwargs"]["item_ids"][::-1]),
                _call(r2),
                _call(address),
                _call(items),
            ],
            said,
            1.0,
            "list reordered: return_delivered_order_items stores sorted(item_ids)",
        ),
        (
            104,
            [_call(r1), _call(r2), _call(address), _call(items)],
            "Done.",
            0.0,
            "right writes, but the output is never said",
        ),
        (101, [_call(m2), _call(r3)], "Done.", 1.0, "right"),
        (
            101,
            [_call(m2, SWAPPED, item_ids=m2["kwargs"]["item_ids"][::-1]), _call(r3)],
            "Done.",
            0.0,
            "pairs swapped: the tool refuses, the items stay as they were",
        ),
        (
            64,
            [_call(modify)],
            "Done.",
            1.0,
            "right: the ground truth's exchange is refused in τ-bench's replay too",
        ),
        (
            64,
            [_call(exchange, NOT_DELIVERED), _call(modify)],
            "Done.",
            1.0,
            "right, trying the exchange the tool refuses",
        ),
        (64, [_call(exchange, NOT_DELIVERED)], "Done.", 0.0, "only the refused write"),
    ]


def _entry(task: dict[str, Any], trial: int, calls: list[Any], said: str, reward: float) -> Any:
    traj: list[dict[str, Any]] = [
        {"role": "system", "content": "retail policy"},
        {"role": "user", "content": "hi"},
    ]
    for number, (name, args, answer) in enumerate(calls):
        call_id = f"call_{number}"
        function = {"name": name, "arguments": json.dumps(args)}
        traj.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call_id, "type": "function", "function": function}],
            }
        )
        traj.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": answer})
    traj.append({"role": "assistant", "content": said})
    # As τ-bench writes it: a task with outputs keeps only the outputs' verdict in info.
    info = {"r_outputs": reward} if task["outputs"] else {"r_actions": reward}
    return {
        "task_id": task["task_index"],
        "trial": trial,
        "reward": reward,
        "traj": traj,
        "info": {
            "task": task,
            "reward_info": {"reward": reward, "info": info, "actions": task["actions"]},
        },
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any], str]:
    tasks = _tasks()
    runs = _runs(tasks)
    trials: dict[int, int] = {}
    entries = []
    for task_id, calls, said, reward, _ in runs:
        trials[task_id] = trials.get(task_id, -1) + 1
        entries.append(_entry(tasks[task_id], trials[task_id], calls, said, reward))
    out = tmp_path_factory.mktemp("retail")
    (out / "retail.json").write_text(json.dumps(entries), encoding="utf-8")
    invoke = CliRunner().invoke
    imported = invoke(
        main,
        [
            "import",
            "taubench",
            str(out / "retail.json"),
            "-o",
            str(out / "runs.jsonl"),
            "--suite-out",
            str(out / "retail.yaml"),
        ],
    )
    assert imported.exit_code == 0, imported.output
    result = invoke(
        main,
        [
            "grade",
            str(out / "runs.jsonl"),
            "--tasks",
            str(out / "retail.yaml"),
            "--out",
            str(out / "results"),
            "--json",
            "--no-store",
        ],
    )
    assert result.exit_code == 0, result.output
    return out, runs, imported.stderr


def test_the_write_tools_are_retails_own(graded: tuple[Path, list[Any], str]) -> None:
    _, _, stderr = graded
    assert stderr.splitlines()[1] == f"write tools: retail's own (7): {', '.join(RETAIL_WRITES)}"
    tools = json.loads(
        shared_data_path("taubench", "tools", "retail_tools@7362a170.json").read_text()
    )
    assert sorted(t["name"] for t in tools if t["writes_db"]) == RETAIL_WRITES


def test_the_suite_says_what_the_data_hash_sees(graded: tuple[Path, list[Any], str]) -> None:
    out, _, _ = graded
    suite = yaml.safe_load((out / "retail.yaml").read_text(encoding="utf-8"))
    by_id = {task["id"]: task for task in suite["tasks"]}
    # The exchange τ-bench's replay refuses is left out; a run it found right has no call for it.
    assert [c["name"] for c in by_id["64"]["expect_tools"]] == ["modify_pending_order_items"]
    first_return = by_id["104"]["expect_tools"][0]["args"]
    assert first_return["item_ids"] == {"$unordered": ["4900661478", "3614853563"]}
    items = by_id["101"]["expect_tools"][0]["args"]  # paired item by item: kept in order
    assert items["item_ids"] == ["8926329222", "5312063289"]
    assert by_id["104"]["idempotent_tools"] == [
        "modify_pending_order_address",
        "modify_user_address",
    ]


def test_grade_agrees_with_taubench_on_every_mistake_kind(
    graded: tuple[Path, list[Any], str],
) -> None:
    out, runs, _ = graded
    lines = (out / "results" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    verdicts = [json.loads(line)["passed"] for line in lines]
    assert len(verdicts) == len(runs) == 12
    disagree = [
        why
        for (*_, reward, why), passed in zip(runs, verdicts, strict=True)
        if passed != (reward == 1)
    ]
    assert disagree == []
    assert sum(verdicts) == 6
