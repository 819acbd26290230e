"""Grading throughput benchmark: judgekit's streaming ``grade_file`` against a naive baseline.

Usage::

    python bench/grade_throughput.py [--runs N] [--out DIR] [--repeat R] [--profile]

It generates N realistic runs of about five tool calls each (seeded, so every invocation
grades the same bytes) for a generated four-task suite, each run's calls and final state its
own (every email carries the run's ticket number: no two runs repeat), then measures, each
configuration in a fresh child process pinned to one core:

* ``streaming``: ``judgekit.graders.grade_file.grade_file`` end to end (read JSONL, decode
  with msgspec into lean structs, pydantic for any line they are not sure of, grade with
  Truth/Path/State, write results.jsonl + results.csv atomically), at N runs and at N/10
  runs, so that a peak RSS that does not grow with the file shows;
* ``naive``: the obvious in-memory approach (read the whole file, ``json.loads`` every line
  into a list, validate every record into a list of ``Run``, grade each into a list, then
  write the same results), at N and at N/10;
* ``phases``: where the streaming time goes: grade_file's per-run loop with a clock around
  each stage (read a line, parse, grade, tally, write), at N;
* ``grading``: grading alone, ``grade_row`` (what grade_file grades with) in a loop over N/10
  pre-parsed runs, then each
  grader (Truth, Path, State, the success-claim check) alone;
* ``json_loads``: the baseline: reading the file and ``json.loads`` of every line, at N;
* ``jobs``: ``grade_file(jobs=2)`` (``judgekit grade --jobs 2``), not pinned, at N: wall
  time, cpu time of the parent and its workers, and the speed-up over one job;
* ``table``: grade's per-task tables for :data:`TABLE_TASKS` tasks (each of the small file's
  first runs made a task of its own), as grade draws them and by rich's own table layout,
  checked identical;
* ``idle``: the interpreter with judgekit imported and the tasks loaded: the memory floor;
* ``taubench``: the 200 real τ-bench airline runs of ``../shared/data/taubench`` (when that
  folder is there), imported with ``judgekit import taubench`` and graded end to end
  against the suite it writes, the file graded :data:`TAU_ROUNDS` times, against
  ``json.loads`` of the same file as many times.

Rates are runs per CPU second of the pinned child (its share of a shared core), with the
wall time beside them.

Peak memory is the child's own ``ru_maxrss``. Both approaches must write byte-identical
results.jsonl files, which the script checks.

``--out DIR`` keeps the generated suite, runs and results there; ``--profile`` adds a
cProfile of grade_file over the N/10 runs. The generator is seeded: the same N and seed
give the same bytes.
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import csv
import gc
import hashlib
import io
import itertools
import json
import math
import os
import pstats
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgekit._util.jsonl import iter_lines
from judgekit.formats.grade import Grade
from judgekit.formats.run import Run, read_run_line
from judgekit.formats.run_lean import LeanRun, lean_run
from judgekit.formats.task import Task, TaskSet, load_tasks
from judgekit.graders.claims import claims_success
from judgekit.graders.grade import grade_row, grade_run
from judgekit.graders.grade_file import grade_file
from judgekit.graders.path import grade_path
from judgekit.graders.results_files import CSV_COLUMNS, csv_row, results_line
from judgekit.graders.state import grade_state
from judgekit.graders.summary import GradeSummary
from judgekit.graders.truth import grade_truth

TARGET_RUNS_PER_S = 10_000
TABLE_TASKS = 2_000  # the per-task tables' size the target is set for, whatever --runs is
TARGET_TABLE_S = 0.5  # grade's per-task tables of TABLE_TASKS tasks
TAU_ROUNDS = 25  # the 200 τ-bench runs graded this many times
TAU_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "taubench"
DEFAULT_SEED = 20240614

# --------------------------------------------------------------------------------------
# The generated suite
# --------------------------------------------------------------------------------------

INITIAL_STATE: dict[str, Any] = {
    "orders": {
        "A100": {"status": "delivered", "total": 40.0, "refunded": 0, "customer": "C1"},
        "A101": {"status": "shipped", "total": 25.5, "refunded": 0, "customer": "C2"},
        "A102": {"status": "delivered", "total": 90.0, "refunded": 0, "customer": "C1"},
    },
    "customers": {
        "C1": {
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "address": {"street": "12 Elm St", "city": "Denver", "zip": "80202"},
        },
        "C2": {
            "name": "Alan Turing",
            "email": "alan@example.com",
            "address": {"street": "3 Oak Ave", "city": "Boulder", "zip": "80301"},
        },
    },
    "bookings": {},
    "emails": [],
    "notes": [],
}

SUITE: dict[str, Any] = {
    "suite": "bench",
    "description": "Generated for bench/grade_throughput.py: four five-call support tasks.",
    "initial_state": INITIAL_STATE,
    "defaults": {"max_tool_error_rate": 0.25},
    "tasks": [
        {
            "id": "refund_notify",
            "input": "A100 arrived broken: refund it in full, email Ada and leave a note.",
            "expect_tools": [
                {"name": "lookup_order", "args": {"order_id": "A100"}},
                {"name": "lookup_customer", "args": {"customer_id": "C1"}},
                {
                    "name": "issue_refund",
                    "args": {
                        "order_id": "A100",
                        "amount": {"$approx": 40, "$abs": 0.01},
                        "reason": {"$one_of": ["damaged", "broken", "arrived broken"]},
                    },
                },
                {
                    "name": "send_email",
                    "args": {
                        "to": "ada@example.com",
                        "subject": {"$regex": "(?i).*refund.*"},
                        "body": {"$regex": "(?is).*40.*"},
                    },
                },
                {
                    "name": "add_note",
                    "args": {
                        "order_id": "A100",
                        "note": {"text": {"$regex": "(?i)refund.*"}, "tags": ["refund", "damaged"]},
                    },
                },
            ],
            "order": "unordered",
            "extra_args": "forbid",
            "max_calls": {"issue_refund": 1, "send_email": 1},
            "step_budget": {"multiplier": 1.2},
            "expect_state": {
                "orders.A100.refunded": {"$approx": 40, "$abs": 0.01},
                "orders.A100.status": "refunded",
                "emails.0.to": "ada@example.com",
                "emails.1": {"$absent": True},
            },
            "only_changes": ["orders.A100", "emails", "notes"],
        },
        {
            "id": "rebook_denver",
            "input": "Find Ada a flight to Denver on 2024-06-14, book it and confirm by email.",
            "expect_tools": [
                {
                    "name": "search",
                    "args": {
                        "destination": {"$one_of": ["Denver", "Denver, CO", "DEN"]},
                        "date": {"$regex": r"2024-\d{2}-\d{2}"},
                        "passengers": {"adults": 1, "children": 0},
                    },
                },
                {
                    "name": "book",
                    "args": {
                        "flight_id": {"$regex": r"[A-Z0-9]{2}\d{2,4}"},
                        "date": "2024-06-14",
                        "passenger": {"name": "Ada Lovelace", "seats": {"$approx": 1, "$abs": 0}},
                    },
                },
                {
                    "name": "send_email",
                    "args": {"to": "ada@example.com", "subject": {"$regex": "(?i).*booked.*"}},
                },
            ],
            "order": "in_order",
            "forbid_tools": ["cancel_booking"],
            "max_calls": {"book": 1},
            "step_budget": {"max_tool_calls": 6},
            "loops": {"min_repeats": 3, "max_period": 3},
            "expect_state": {
                "bookings.BK1.status": "booked",
                "bookings.BK1.flight_id": {"$regex": r"[A-Z0-9]{2}\d{2,4}"},
            },
            "only_changes": ["bookings", "emails"],
        },
        {
            "id": "update_address",
            "input": "Ada moved to 500 Pine St, Seattle 98101: update her address and tell her.",
            "expect_tools": [
                {"name": "lookup_customer", "args": {"customer_id": "C1"}},
                {
                    "name": "update_address",
                    "args": {
                        "customer_id": "C1",
                        "address": {
                            "street": {"$regex": r"\d+ .+"},
                            "city": {"$one_of": ["Seattle", "Seattle, WA"]},
                            "zip": "98101",
                        },
                    },
                },
                {
                    "name": "send_email",
                    "args": {"to": "ada@example.com", "body": {"$regex": "(?is).*address.*"}},
                },
            ],
            "order": "superset",
            "duplicates": "forbid",
            "max_calls": {"update_address": 1},
            "step_budget": {"multiplier": 2},
            "expect_state": {
                "customers.C1.address.city": {"$one_of": ["Seattle", "Seattle, WA"]},
                "customers.C1.address.zip": "98101",
            },
            "only_changes": ["customers.C1.address", "emails"],
        },
        {
            "id": "cancel_refund",
            "input": "Cancel A101 (not delivered yet), refund Alan and let him know.",
            "expect_tools": [
                {"name": "cancel_order", "args": {"order_id": "A101"}},
                {
                    "name": "issue_refund",
                    "args": {"order_id": "A101", "amount": {"$approx": 25.5, "$rel": 0.001}},
                },
                {
                    "name": "send_email",
                    "args": {
                        "to": "alan@example.com",
                        "subject": {"$regex": "(?i).*(cancel|refund).*"},
                    },
                },
            ],
            "order": "superset",
            "max_calls": {"issue_refund": 1},
            "step_budget": {"max_tool_calls": 6},
            "expect_state": {
                "orders.A101.status": "cancelled",
                "orders.A101.refunded": {"$approx": 25.5, "$abs": 0.01},
            },
            "only_changes": ["orders.A101", "emails"],
        },
    ],
}

# --------------------------------------------------------------------------------------
# The generated runs
# --------------------------------------------------------------------------------------

Call = dict[str, Any]

# How runs go wrong, with weights: most pass, the rest fail the way agents fail.
OUTCOMES: list[tuple[str, float]] = [
    ("ok", 0.55),
    ("wrong_arg", 0.13),
    ("duplicate", 0.09),
    ("extra_call", 0.07),
    ("missing_call", 0.05),
    ("state_drift", 0.05),
    ("out_of_order", 0.03),
    ("stopped", 0.02),
    ("loop", 0.01),
]


def _call(name: str, **args: Any) -> Call:
    return {"name": name, "args": args}


def _refund_notify(rng: random.Random) -> tuple[list[Call], list[int]]:
    amount = rng.choice([40, 40.0, 40.004])
    calls = [
        _call("lookup_order", order_id="A100"),
        _call("lookup_customer", customer_id="C1"),
        _call(
            "issue_refund",
            order_id="A100",
            amount=amount,
            reason=rng.choice(["damaged", "broken", "arrived broken"]),
        ),
        _call(
            "send_email",
            to="ada@example.com",
            subject=rng.choice(["Your refund for A100", "Refund issued"]),
            body=f"Hello Ada,\nwe refunded ${amount:.2f} for order A100. Sorry about that.",
        ),
        _call(
            "add_note",
            order_id="A100",
            note={"text": "Refunded in full: arrived broken", "tags": ["refund", "damaged"]},
        ),
    ]
    if rng.random() < 0.3:
        calls[3], calls[4] = calls[4], calls[3]
    return calls, []  # every call is expected (unordered): no filler


def _rebook_denver(rng: random.Random) -> tuple[list[Call], list[int]]:
    flight = rng.choice(["UA455", "F9123", "WN1789"])
    calls = [
        _call("lookup_customer", customer_id="C1"),
        _call(
            "search",
            destination=rng.choice(["Denver", "Denver, CO", "DEN"]),
            date="2024-06-14",
            passengers={"adults": 1, "children": 0},
        ),
        _call("get_weather", city="Denver", date="2024-06-14"),
        _call(
            "book",
            flight_id=flight,
            date="2024-06-14",
            passenger={"name": "Ada Lovelace", "seats": 1},
        ),
        _call(
            "send_email",
            to="ada@example.com",
            subject=f"Booked: {flight} on 2024-06-14",
            body="Your flight is booked. Have a good trip!",
        ),
    ]
    return calls, [0, 2]


def _update_address(rng: random.Random) -> tuple[list[Call], list[int]]:
    address = {
        "street": "500 Pine St",
        "city": rng.choice(["Seattle", "Seattle, WA"]),
        "zip": "98101",
    }
    calls = [
        _call("lookup_customer", customer_id="C1"),
        _call("lookup_order", order_id="A102"),
        _call("update_address", customer_id="C1", address=address),
        _call("lookup_customer", customer_id="C1", fields=["address"]),
        _call(
            "send_email",
            to="ada@example.com",
            subject="Address updated",
            body=f"Your address is now {address['street']}, {address['city']}.",
        ),
    ]
    return calls, [1, 3]


def _cancel_refund(rng: random.Random) -> tuple[list[Call], list[int]]:
    calls = [
        _call("lookup_order", order_id="A101"),
        _call("cancel_order", order_id="A101"),
        _call("cancel_order", order_id="A101"),
        _call("issue_refund", order_id="A101", amount=rng.choice([25.5, 25.50001])),
        _call(
            "send_email",
            to="alan@example.com",
            subject=rng.choice(["Order A101 cancelled", "Your refund for A101"]),
            body="A101 is cancelled and $25.50 is on its way back to you.",
        ),
    ]
    if rng.random() < 0.5:
        calls[1]["error"] = "upstream timeout, try again"  # a retry, not a duplicate
        return calls, [0]
    calls[1] = _call("lookup_customer", customer_id="C2")
    return calls, [0, 1]


TEMPLATES: dict[str, Callable[[random.Random], tuple[list[Call], list[int]]]] = {
    "refund_notify": _refund_notify,
    "rebook_denver": _rebook_denver,
    "update_address": _update_address,
    "cancel_refund": _cancel_refund,
}

# Plausible wrong arguments, per task: (tool, dotted argument, wrong value).
WRONG_ARGS: dict[str, list[tuple[str, str, Any]]] = {
    "refund_notify": [
        ("issue_refund", "amount", 45),
        ("issue_refund", "reason", "changed mind"),
        ("send_email", "to", "alan@example.com"),
        ("add_note", "note.tags", ["refund"]),
        ("issue_refund", "priority", "high"),  # an unexpected argument (extra_args: forbid)
    ],
    "rebook_denver": [
        ("search", "destination", "Boulder"),
        ("book", "passenger.seats", 2),
        ("book", "flight_id", "ua455"),
        ("book", "date", "June 14"),
    ],
    "update_address": [
        ("update_address", "address.zip", 98101),
        ("update_address", "address.city", "Tacoma"),
        ("send_email", "to", "ada@example.org"),
    ],
    "cancel_refund": [
        ("issue_refund", "amount", 25),
        ("cancel_order", "order_id", "A100"),
        ("send_email", "subject", "Hello"),
    ],
}

EXTRA_CALLS: list[Call] = [
    _call("lookup_booking", booking_id="BK7"),
    _call("lookup_order", order_id="A102"),
    _call("send_email", to="ops@example.com", subject="FYI", body="Handled a ticket."),
    _call("get_weather", city="Seattle"),
]


def _set_arg(args: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        args = args[part]
    args[last] = value


def _simulate(state: dict[str, Any], call: Call) -> Any:
    """Apply one call to the world; return what the tool answers."""
    if call.get("error"):
        return None
    args = call["args"]
    name = call["name"]
    if name == "lookup_order":
        order = state["orders"].get(args["order_id"], {})
        return {"status": order.get("status"), "total": order.get("total")}
    if name == "lookup_customer":
        customer = state["customers"].get(args["customer_id"], {})
        return {"name": customer.get("name"), "email": customer.get("email")}
    if name == "issue_refund":
        order = state["orders"][args["order_id"]]
        order["refunded"] = round(order["refunded"] + args["amount"], 2)
        order["status"] = "refunded" if order["status"] == "delivered" else order["status"]
        return {"ok": True, "refund_id": "R-" + args["order_id"]}
    if name == "send_email":
        state["emails"].append({"to": args["to"], "subject": args["subject"], "body": args["body"]})
        return {"ok": True}
    if name == "add_note":
        state["notes"].append({"order_id": args["order_id"], "text": args["note"]["text"]})
        return {"ok": True}
    if name == "search":
        return {
            "flights": [
                {"flight_id": "UA455", "price": 129.0},
                {"flight_id": "F9123", "price": 99.0},
            ]
        }
    if name == "get_weather":
        return {"city": args["city"], "forecast": "sunny", "high_c": 24}
    if name == "book":
        booking_id = f"BK{len(state['bookings']) + 1}"
        state["bookings"][booking_id] = {
            "flight_id": args["flight_id"],
            "date": args["date"],
            "status": "booked",
        }
        return {"booking_id": booking_id}
    if name == "update_address":
        state["customers"][args["customer_id"]]["address"] = dict(args["address"])
        return {"ok": True}
    if name == "cancel_order":
        state["orders"][args["order_id"]]["status"] = "cancelled"
        return {"ok": True}
    return {"ok": True}


def make_run(index: int, rng: random.Random, task_ids: list[str]) -> dict[str, Any]:
    """One realistic run: about five calls, passing or failing the way agents do."""
    task_id = task_ids[index % len(task_ids)] if rng.random() < 0.5 else rng.choice(task_ids)
    calls, fillers = TEMPLATES[task_id](rng)
    outcome = rng.choices([o for o, _ in OUTCOMES], weights=[w for _, w in OUTCOMES])[0]
    stop_reason = "completed"
    if outcome == "wrong_arg":
        tool, dotted, value = rng.choice(WRONG_ARGS[task_id])
        target = next(c for c in calls if c["name"] == tool and not c.get("error"))
        _set_arg(target["args"], dotted, value)
    elif outcome == "duplicate":
        source = rng.randrange(len(calls))
        copied = {"name": calls[source]["name"], "args": copy.deepcopy(calls[source]["args"])}
        position = rng.randrange(source + 1, len(calls) + 1)
        calls.insert(position, copied)
        spare = [f for f in fillers if f != source]
        if spare:  # keep five calls when a filler call can make room
            del calls[spare[-1] if spare[-1] < position else spare[-1] + 1]
    elif outcome == "extra_call":
        calls.insert(rng.randrange(1, len(calls) + 1), copy.deepcopy(rng.choice(EXTRA_CALLS)))
    elif outcome == "missing_call":
        del calls[rng.randrange(len(calls))]
    elif outcome == "out_of_order":
        i = rng.randrange(len(calls) - 1)
        calls[i], calls[i + 1] = calls[i + 1], calls[i]
    elif outcome == "stopped":
        del calls[3:]
        stop_reason = rng.choice(["max_turns", "timeout"])
    elif outcome == "loop":
        repeated = {"name": "get_weather", "args": {"city": "Denver"}}
        calls[1:1] = [copy.deepcopy(repeated) for _ in range(3)]
    for call in calls:  # each run's own ticket: no two runs share a call or a final state
        if call["name"] == "send_email":
            call["args"]["body"] = f"{call['args'].get('body', '')} Ticket #{index}."
    state = copy.deepcopy(INITIAL_STATE)
    tool_calls = []
    for number, call in enumerate(calls, start=1):
        result = _simulate(state, call)
        record: dict[str, Any] = {"id": f"call_{index}_{number}", **call}
        if not call.get("error"):
            record["result"] = result
        tool_calls.append(record)
    if outcome == "state_drift":
        drift = rng.choice(
            [
                ("customers", "C2", "email", "alan@evil.example"),
                ("orders", "A102", "status", "cancelled"),
            ]
        )
        state[drift[0]][drift[1]][drift[2]] = drift[3]
    if stop_reason != "completed":
        final_answer = rng.choice([None, "Sorry, I could not finish this in time."])
    elif outcome == "ok" or rng.random() < 0.6:
        final_answer = "All done: everything you asked for is taken care of."
    else:
        final_answer = "I was unable to complete every step, sorry."
    input_tokens = rng.randint(900, 2400)
    output_tokens = rng.randint(120, 420)
    return {
        "run_id": f"bench/{task_id}/{index}",
        "task_id": task_id,
        "trial": index // len(task_ids) + 1,
        "input": next(t["input"] for t in SUITE["tasks"] if t["id"] == task_id),
        "tool_calls": tool_calls,
        "final_answer": final_answer,
        "turns": len(tool_calls) + 1,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        "cost_usd": round(input_tokens * 0.15e-6 + output_tokens * 0.6e-6, 6),
        "duration_s": round(rng.uniform(1.5, 9.0), 2),
        "stop_reason": stop_reason,
        "initial_state": INITIAL_STATE,
        "final_state": state,
        "metadata": {"agent": "support-v3", "model": "gpt-4o-mini", "outcome": outcome},
    }


def _digest(value: Any) -> bytes:
    return hashlib.blake2b(json.dumps(value).encode(), digest_size=16).digest()


def generate(
    work: Path, n_runs: int, n_small: int, seed: int
) -> tuple[Path, Path, Path, dict[str, Any]]:
    """Write the suite and the runs (the small file is the first n_small runs of the big one)."""
    suite_path = work / "bench_suite.yaml"
    suite_path.write_text(yaml.safe_dump(SUITE, sort_keys=False, allow_unicode=True))
    big = work / f"runs_{n_runs}.jsonl"
    small = work / f"runs_{n_small}.jsonl"
    rng = random.Random(seed)
    task_ids = [t["id"] for t in SUITE["tasks"]]
    calls = 0
    outcomes: dict[str, int] = {}
    # Digests of the distinct (task, calls' names and arguments) and (task, final state): the
    # texts themselves would grow this process, whose peak the children's ru_maxrss inherits.
    sequences: set[bytes] = set()
    finals: set[bytes] = set()
    with big.open("w", encoding="utf-8") as fh_big, small.open("w", encoding="utf-8") as fh_small:
        for index in range(n_runs):
            run = make_run(index, rng, task_ids)
            calls += len(run["tool_calls"])
            outcome = run["metadata"]["outcome"]
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            named = [(call["name"], call.get("args")) for call in run["tool_calls"]]
            sequences.add(_digest([run["task_id"], named]))
            finals.add(_digest([run["task_id"], run["final_state"]]))
            line = json.dumps(run, ensure_ascii=False) + "\n"
            fh_big.write(line)
            if index < n_small:
                fh_small.write(line)
    stats = {
        "calls_per_run": calls / n_runs,
        "outcomes": outcomes,
        "bytes": big.stat().st_size,
        "sequences": len(sequences),
        "finals": len(finals),
    }
    return suite_path, big, small, stats


# --------------------------------------------------------------------------------------
# Child processes: one measured configuration each
# --------------------------------------------------------------------------------------


def _pin_to_one_core() -> int | None:
    if not hasattr(os, "sched_setaffinity"):
        return None
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return core


def _peak_rss_mb() -> float:
    return _to_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _to_mb(maxrss: int) -> float:
    return maxrss / 2**20 if sys.platform == "darwin" else maxrss / 2**10  # bytes vs KiB


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _timed_result(summary: GradeSummary, wall: float, cpu: float) -> dict[str, Any]:
    return {"runs": summary.runs, "passed": summary.passed, "wall_s": wall, "cpu_s": cpu}


def _child_streaming(runs: Path, tasks: TaskSet, out: Path) -> dict[str, Any]:
    """judgekit's streaming path, end to end, exactly as ``judgekit grade`` runs it."""
    start_cpu, start = time.process_time(), time.perf_counter()
    summary = grade_file(runs, tasks, out_dir=out)
    return _timed_result(summary, time.perf_counter() - start, time.process_time() - start_cpu)


def _child_naive(runs: Path, tasks: TaskSet, out: Path) -> dict[str, Any]:
    """The obvious approach: everything in lists, results written at the end."""
    start_cpu, start = time.process_time(), time.perf_counter()
    with runs.open(encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    models = [Run.model_validate(record) for record in records]
    grades: list[Grade] = []
    for run in models:
        task = tasks.get(run.task_id)
        assert task is not None, run.task_id
        grades.append(grade_run(run, task))
    summary = GradeSummary()
    for grade in grades:
        summary.add(grade)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "results.jsonl").open("w", encoding="utf-8") as fh:
        fh.write("".join(grade.model_dump_json() + "\n" for grade in grades))
    with (out / "results.csv").open("w", encoding="utf-8", newline="") as fh:
        table = csv.writer(fh)
        table.writerow(CSV_COLUMNS)
        table.writerows(csv_row(grade) for grade in grades)
    return _timed_result(summary, time.perf_counter() - start, time.process_time() - start_cpu)


STAGES = ("read line", "parse (lean_run: msgspec)", "grade (grade_row)", "tally", "write")


def _child_phases(runs: Path, tasks: TaskSet, out: Path) -> dict[str, Any]:
    """The per-run loop of grade_file with a clock around each stage (results go to devnull).

    The clock costs well under a microsecond per stage, so the stages add up to about the
    end-to-end time.
    """
    clock = time.perf_counter
    spent = dict.fromkeys(STAGES, 0.0)
    grading = {True: 0.0, False: 0.0}
    graded = {True: 0, False: 0}
    summary = GradeSummary()
    with (
        open(os.devnull, "w", encoding="utf-8") as jsonl,
        open(os.devnull, "w", encoding="utf-8", newline="") as raw_csv,
    ):
        lines = iter_lines(runs)
        table = csv.writer(raw_csv)
        t0 = clock()
        for _, text in lines:
            t1 = clock()
            run = _read(text)
            t2 = clock()
            task = tasks.get(run.task_id)
            assert task is not None, run.task_id
            grade = grade_row(run, task)
            t3 = clock()
            summary.add(grade)
            t4 = clock()
            jsonl.write(results_line(grade))  # as write_results renders a grade
            table.writerow(csv_row(grade))
            t5 = clock()
            spent["read line"] += t1 - t0
            spent["parse (lean_run: msgspec)"] += t2 - t1
            spent["grade (grade_row)"] += t3 - t2
            spent["tally"] += t4 - t3
            spent["write"] += t5 - t4
            grading[grade.passed] += t3 - t2
            graded[grade.passed] += 1
            t0 = t5
    return {
        "runs": summary.runs,
        "passed": summary.passed,
        "stages": spent,
        "grade_us_pass": 1e6 * grading[True] / max(graded[True], 1),
        "grade_us_fail": 1e6 * grading[False] / max(graded[False], 1),
    }


def _read(text: str) -> LeanRun | Run:
    """One line as grade_file reads it: lean when it can, the pydantic model otherwise."""
    return read_run_line(text, ("runs.jsonl", 0), lean=lean_run)


def _child_json_loads(runs: Path, tasks: TaskSet, out: Path) -> dict[str, Any]:
    """The baseline: only reading the file and ``json.loads`` of every line."""
    start_cpu, start = time.process_time(), time.perf_counter()
    count = sum(1 for _, text in iter_lines(runs) if json.loads(text) is not None)
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return {"runs": count, "passed": 0, "wall_s": wall, "cpu_s": cpu}


def _child_jobs(runs: Path, tasks: TaskSet, out: Path) -> dict[str, Any]:
    """``grade_file(jobs=2)``, on every core the machine lets it use (not pinned)."""
    start_cpu, start = time.process_time(), time.perf_counter()
    summary = grade_file(runs, tasks, out_dir=out, jobs=JOBS)
    wall = time.perf_counter() - start
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pool is shut down: reaped
    cpu = time.process_time() - start_cpu + workers.ru_utime + workers.ru_stime
    result = _timed_result(summary, wall, cpu)
    result["workers_peak_mb"] = _to_mb(workers.ru_maxrss)
    return result


def _child_grading(runs: Path, tasks: TaskSet, out: Path) -> dict[str, Any]:
    """Grading alone: pre-parsed runs, ``grade_row`` in a loop, then each grader alone.

    One warm-up pass, then the best of three interleaved timed passes per function.

    The parsed runs are frozen out of the cyclic GC (``gc.freeze``) so that holding them
    does not bill the loop for collections the streaming path never makes.
    """
    pairs: list[tuple[LeanRun | Run, Task]] = []
    for run in (_read(text) for _, text in iter_lines(runs)):
        task = tasks.get(run.task_id)
        assert task is not None, run.task_id
        pairs.append((run, task))
    gc.collect()
    gc.freeze()
    clock = time.perf_counter
    loops: dict[str, Callable[[LeanRun | Run, Task], Any]] = {
        "grade_row (all of it)": grade_row,
        "grade_truth": grade_truth,
        "grade_path": grade_path,
        "grade_state": grade_state,
        "claims_success": lambda run, task: claims_success(run.final_answer),
    }
    for run, task in pairs:  # warm up: regex caches, lazily built objects
        grade_row(run, task)
    seconds = dict.fromkeys(loops, math.inf)
    for _ in range(3):  # interleaved, best of three: shared machines drift and stall
        for name, grader in loops.items():
            start = clock()
            for run, task in pairs:
                grader(run, task)
            seconds[name] = min(seconds[name], clock() - start)
    return {"runs": len(pairs), "seconds": seconds}


def _child_profile(runs: Path, tasks: TaskSet, out: Path) -> dict[str, Any]:
    profiler = cProfile.Profile()
    profiler.enable()
    grade_file(runs, tasks, out_dir=out)
    profiler.disable()
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(30)
    return {"profile": text.getvalue()}


def _child_table(runs: Path, tasks: TaskSet, out: Path) -> dict[str, Any]:
    """grade's per-task tables for the first :data:`TABLE_TASKS` runs, each made a task of its
    own: drawn as grade draws them, and by rich's own table layout, best of three each."""
    from rich.console import Console

    from judgekit.graders import table_render
    from judgekit.graders.table import print_grade_table

    summary = GradeSummary()
    for index, (_, text) in enumerate(itertools.islice(iter_lines(runs), TABLE_TASKS)):
        run = _read(text)
        task = tasks.get(run.task_id)
        assert task is not None, run.task_id
        summary.add(grade_row(run, task)._replace(task_id=f"{run.task_id}-{index:05d}"))

    def draw() -> tuple[float, str]:
        console = Console(file=io.StringIO(), width=80, emoji=False)
        start = time.perf_counter()
        print_grade_table(summary, console, show_reasons=False)
        assert isinstance(console.file, io.StringIO)
        return time.perf_counter() - start, console.file.getvalue()

    quick = min(draw() for _ in range(3))
    quick_segments = table_render._quick_segments
    table_render._quick_segments = lambda *args: None  # type: ignore[assignment]
    rich_layout = min(draw() for _ in range(3))
    table_render._quick_segments = quick_segments
    return {
        "runs": 0,
        "tasks": len(summary.tasks),
        "quick_s": quick[0],
        "rich_s": rich_layout[0],
        "identical": quick[1] == rich_layout[1],
    }


def _child_taubench(runs: Path, tasks: TaskSet, out: Path) -> dict[str, Any]:
    """The imported τ-bench runs graded end to end :data:`TAU_ROUNDS` times, and json.loads
    of the same file as many times (the baseline, in the same process)."""
    start_cpu, start = time.process_time(), time.perf_counter()
    for _ in range(TAU_ROUNDS):
        summary = grade_file(runs, tasks, out_dir=out)
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    start_cpu = time.process_time()
    for _ in range(TAU_ROUNDS):
        assert all(json.loads(text) is not None for _, text in iter_lines(runs))
    loads_cpu = time.process_time() - start_cpu
    result = _timed_result(summary, wall, cpu)
    result.update(runs=summary.runs * TAU_ROUNDS, loads_cpu_s=loads_cpu)
    return result


CHILDREN: dict[str, Callable[[Path, TaskSet, Path], dict[str, Any]]] = {
    "streaming": _child_streaming,
    "taubench": _child_taubench,
    "naive": _child_naive,
    "phases": _child_phases,
    "grading": _child_grading,
    "profile": _child_profile,
    "json_loads": _child_json_loads,
    "jobs": _child_jobs,
    "table": _child_table,
    "idle": lambda runs, tasks, out: {},
}
JOBS = 2


def child_main(mode: str, suite: Path, runs: Path, out: Path) -> None:
    core = None if mode == "jobs" else _pin_to_one_core()
    tasks = load_tasks(suite)
    startup_mb = _peak_rss_mb()
    result = CHILDREN[mode](runs, tasks, out)
    result.update(core=core, startup_mb=startup_mb, peak_mb=_peak_rss_mb())
    jsonl = out / "results.jsonl"
    if mode in ("streaming", "naive", "jobs") and jsonl.exists():
        result["results_sha256"] = _sha256(jsonl)
    print(json.dumps(result))


# --------------------------------------------------------------------------------------
# The parent: generate, run the children, report
# --------------------------------------------------------------------------------------


def run_child(mode: str, suite: Path, runs: Path, out: Path) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", mode]
    command += ["--suite", str(suite), "--runs-file", str(runs), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"child {mode} on {runs.name} failed with exit code {done.returncode}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _rate(result: dict[str, Any]) -> float:
    """Runs per CPU second: what one core does, however busy the machine is."""
    return float(result["runs"] / result["cpu_s"])


def _label(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else f"{n:,}"


def _print_table(headers: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        )

    print(line(headers))
    print("  ".join("-" * width for width in widths))
    for row in rows:
        print(line(row))


def bench(n_runs: int, work: Path, repeat: int, seed: int, profile: bool) -> None:
    n_small = max(n_runs // 10, 1)
    big_label, small_label = _label(n_runs), _label(n_small)
    print(f"judgekit grading benchmark: {n_runs:,} and {n_small:,} generated runs, seed {seed}")
    print(
        f"python {sys.version.split()[0]}, pydantic {pydantic.VERSION}, {os.cpu_count()} CPUs; "
        "each configuration in a fresh child process pinned to one core"
    )
    start = time.perf_counter()
    suite, big, small, stats = generate(work, n_runs, n_small, seed)
    ranked = sorted(stats["outcomes"].items(), key=lambda kv: -kv[1])
    mix = ", ".join(f"{name} {count / n_runs:.0%}" for name, count in ranked)
    print(
        f"generated {len(SUITE['tasks'])} tasks and {big.name}: {stats['bytes'] / 2**20:.1f} MB "
        f"({stats['bytes'] / n_runs:,.0f} B/run), {stats['calls_per_run']:.2f} tool calls/run, "
        f"in {time.perf_counter() - start:.1f} s"
    )
    print(f"generated outcomes: {mix}")
    print(
        f"distinct call sequences (names and arguments) {stats['sequences']:,}, distinct final "
        f"states {stats['finals']:,}, in {n_runs:,} runs"
    )
    print()

    idle = run_child("idle", suite, small, work / "out_idle")
    streamed = [run_child("streaming", suite, big, work / "out_stream_big") for _ in range(repeat)]
    stream_big = dict(min(streamed, key=lambda r: r["cpu_s"]))
    stream_big["peak_mb"] = max(r["peak_mb"] for r in streamed)
    stream_small = run_child("streaming", suite, small, work / "out_stream_small")
    naive_big = run_child("naive", suite, big, work / "out_naive_big")
    naive_small = run_child("naive", suite, small, work / "out_naive_small")
    loads = run_child("json_loads", suite, big, work / "out_loads")
    jobs = run_child("jobs", suite, big, work / "out_jobs")
    phases = run_child("phases", suite, big, work / "out_phases")
    grading = run_child("grading", suite, small, work / "out_grading")
    table = run_child("table", suite, small, work / "out_table")

    identical = stream_big["results_sha256"] == naive_big["results_sha256"]
    if jobs["results_sha256"] != stream_big["results_sha256"]:
        raise SystemExit(f"--jobs {JOBS} wrote other results than one job")
    if not identical:
        raise SystemExit("streaming and naive results.jsonl differ: the comparison is not fair")
    if stream_big["runs"] != n_runs or naive_big["runs"] != n_runs:
        raise SystemExit("not every run was graded")

    print(
        "1. End to end: read JSONL + validate + grade + write results.jsonl/csv "
        f"(pass rate {stream_big['passed'] / n_runs:.1%})"
    )
    rows = [
        [
            name,
            f"{result['runs']:,}",
            f"{result['wall_s']:.2f}",
            f"{result['cpu_s']:.2f}",
            f"{_rate(result):,.0f}",
            f"{1e6 / _rate(result):.1f}",
            f"{result['peak_mb']:.0f}",
            f"{result['peak_mb'] - result['startup_mb']:+.0f}",
        ]
        for name, result in [
            (f"streaming grade_file @ {big_label}", stream_big),
            (f"streaming grade_file @ {small_label}", stream_small),
            (f"naive in-memory @ {big_label}", naive_big),
            (f"naive in-memory @ {small_label}", naive_small),
        ]
    ]
    rows.append(["idle (imports + tasks)", "0", "", "", "", "", f"{idle['peak_mb']:.0f}", "+0"])
    headers = ["configuration", "runs", "wall s", "cpu s", "runs/cpu s", "µs/run", "peak MB"]
    _print_table([*headers, "over idle MB"], rows)
    print(
        f"   results.jsonl of streaming and naive identical: {'yes' if identical else 'NO'}; "
        f"streaming: best of {repeat}; over idle = peak minus the child's RSS after imports "
        "and load_tasks."
    )
    print()

    n_phase = phases["runs"]
    stage_total = sum(phases["stages"].values())
    print(
        f"2. Where the streaming time goes: grade_file's loop with a clock per stage, {big_label}"
    )
    rows = [
        [
            name,
            f"{seconds:.2f}",
            f"{1e6 * seconds / n_phase:.1f}",
            f"{n_phase / seconds:,.0f}",
            f"{seconds / stage_total:.0%}",
        ]
        for name, seconds in phases["stages"].items()
    ]
    rows.append(
        [
            "total",
            f"{stage_total:.2f}",
            f"{1e6 * stage_total / n_phase:.1f}",
            f"{n_phase / stage_total:,.0f}",
            "100%",
        ]
    )
    _print_table(["stage", "s", "µs/run", "runs/s alone", "share"], rows)
    print(
        f"   grade_row: {phases['grade_us_pass']:.1f} µs per passing run, "
        f"{phases['grade_us_fail']:.1f} µs per failing run"
    )
    print()

    n_grading = grading["runs"]
    seconds = grading["seconds"]
    whole = seconds["grade_row (all of it)"]
    parts = sum(v for k, v in seconds.items() if k != "grade_row (all of it)")
    print(f"3. Grading alone: {small_label} pre-parsed runs, each function in a loop")
    rows = [
        [name, f"{1e6 * s / n_grading:.1f}", f"{n_grading / s:,.0f}", f"{s / whole:.0%}"]
        for name, s in seconds.items()
    ]
    rest = whole - parts
    rows.append(
        [
            "rest: GradeRow(...) and call overhead",
            f"{1e6 * rest / n_grading:.1f}",
            "",
            f"{rest / whole:.0%}",
        ]
    )
    _print_table(["function", "µs/run", "runs/s", "of grade_row"], rows)
    print()

    stream_rate, naive_rate = _rate(stream_big), _rate(naive_big)
    grade_rate = n_grading / whole
    verdict = "meets" if stream_rate >= TARGET_RUNS_PER_S else "MISSES"
    growth = stream_big["peak_mb"] - stream_small["peak_mb"]
    naive_growth = naive_big["peak_mb"] - naive_small["peak_mb"]
    print(
        f"target {TARGET_RUNS_PER_S:,} runs/s on one core: {verdict}, end to end "
        f"{stream_rate:,.0f} runs per CPU second = {stream_rate / TARGET_RUNS_PER_S:.2f}x the "
        f"target ({n_runs / stream_big['wall_s']:,.0f} runs/s of wall time; grading alone "
        f"{grade_rate:,.0f} runs/s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
    )
    print(
        f"memory vs file size ({small_label} -> {big_label} runs): streaming {growth:+.0f} MB, "
        f"naive {naive_growth:+.0f} MB"
    )
    print(
        f"streaming: {stream_rate:,.0f} runs/s (1 core), peak {stream_big['peak_mb']:.0f} MB "
        f"at {big_label} and {stream_small['peak_mb']:.0f} MB at {small_label}; "
        f"naive: {naive_rate:,.0f} runs/s, peak {naive_big['peak_mb']:.0f} MB at {big_label} "
        f"and {naive_small['peak_mb']:.0f} MB at {small_label}; "
        f"ratio {stream_rate / naive_rate:.2f}x the throughput, "
        f"{naive_big['peak_mb'] / stream_big['peak_mb']:.1f}x less peak memory at {big_label}"
    )
    loads_rate, jobs_rate = _rate(loads), _rate(jobs)
    print(
        f"baseline json.loads of every line (1 core): {loads_rate:,.0f} runs/s "
        f"({loads['cpu_s']:.2f} cpu s); grading end to end takes "
        f"{stream_big['cpu_s'] / loads['cpu_s']:.1f}x its cpu time"
    )
    print(
        f"--jobs {JOBS} ({os.cpu_count()} CPUs, not pinned): {jobs_rate:,.0f} runs/s, "
        f"{jobs['wall_s']:.2f} wall s, {jobs['cpu_s']:.2f} cpu s (parent + workers), "
        f"{jobs_rate / stream_rate:.2f}x one job; peak {jobs['peak_mb']:.0f} MB parent, "
        f"{jobs['workers_peak_mb']:.0f} MB a worker; results identical to one job: yes"
    )
    if not table["identical"]:
        raise SystemExit("the per-task tables differ from rich's own layout")
    table_verdict = "meets" if table["quick_s"] < TARGET_TABLE_S else "MISSES"
    print(
        f"per-task tables of {table['tasks']:,} tasks (grade's terminal report): "
        f"{table['quick_s']:.2f} s; with rich's own table layout {table['rich_s']:.2f} s "
        f"({table['rich_s'] / table['quick_s']:.1f}x); output identical: yes; target under "
        f"{TARGET_TABLE_S} s: {table_verdict}, {table['quick_s'] / TARGET_TABLE_S:.2f}x the target"
    )
    _print_taubench(work)
    if profile:
        print()
        print(f"cProfile of streaming grade_file over {small_label} runs:")
        print(run_child("profile", suite, small, work / "out_profile")["profile"])


def _print_taubench(work: Path) -> None:
    """Import the real τ-bench airline runs as ``judgekit import taubench`` does, grade them."""
    source = TAU_DATA / "raw" / "gpt-4o-airline.json.gz"
    if not source.is_file():
        print(f"τ-bench airline runs: not measured ({source} is missing)")
        return
    runs, suite = work / "tau.jsonl", work / "airline.yaml"
    command = [sys.executable, "-m", "judgekit", "import", "taubench", str(source)]
    command += ["-o", str(runs), "--suite-out", str(suite)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"judgekit import taubench failed with exit code {done.returncode}")
    records = [json.loads(text) for _, text in iter_lines(runs)]
    sequences = {
        json.dumps([r["task_id"], [(c["name"], c.get("args")) for c in r["tool_calls"]]])
        for r in records
    }
    tau = run_child("taubench", suite, runs, work / "out_tau")
    print(
        f"τ-bench airline runs ({len(records)} runs, {len(sequences)} distinct call sequences, "
        f"imported with judgekit import taubench), graded {TAU_ROUNDS} times: "
        f"{_rate(tau):,.0f} runs per CPU second ({tau['runs'] / tau['wall_s']:,.0f} runs/s of "
        f"wall time); {tau['cpu_s'] / tau['loads_cpu_s']:.1f}x the CPU time of json.loads of "
        "the same file"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Grading throughput benchmark (see the module doc)."
    )
    parser.add_argument("--runs", type=int, default=100_000, help="runs to generate (100000)")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="keep the suite, runs and results here (default: a temporary folder, removed)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="streaming runs at N, best time kept (1)"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--profile", action="store_true", help="also cProfile grade_file at N/10")
    parser.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--suite", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--runs-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child_main(args.child, args.suite, args.runs_file, args.out)
        return
    if args.runs < 10:
        parser.error("--runs must be at least 10")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        bench(args.runs, args.out, max(args.repeat, 1), args.seed, args.profile)
        return
    with tempfile.TemporaryDirectory(prefix="judgekit-bench-") as tmp:
        bench(args.runs, Path(tmp), max(args.repeat, 1), args.seed, args.profile)


if __name__ == "__main__":
    main()
