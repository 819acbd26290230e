"""The example transcripts import and grade to the outcomes they were written to show.

examples/transcripts/ holds the same three shop conversations twice, as OpenAI Chat
Completions (JSONL, one conversation per line) and as Anthropic Messages (a JSON array):

- refuse_overrefund: asked for $200 on a $90 order, the agent refunds $90 and explains — passes;
- refund_full: the agent applies a restocking fee to a broken item and refunds $36 of $40 —
  Truth fails on the amount (State too);
- cancel_shipped: a first cancel_order with a malformed id is refused (the tool error), the
  retry succeeds — the right outcome, but 3 calls against a step budget of 2: Path fails.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from judgekit.cli import main
from tests.conftest import REPO

TRANSCRIPTS = REPO / "examples" / "transcripts"
FORMATS = {
    "openai": TRANSCRIPTS / "shop_openai.jsonl",
    "anthropic": TRANSCRIPTS / "shop_anthropic.json",
}

# run (without its format prefix) -> (passed, graders that fail, first failing reason)
EXPECTED: dict[str, tuple[bool, set[str], str | None]] = {
    "refuse_overrefund/1": (True, set(), None),
    "refund_full/1": (
        False,
        {"truth", "state"},
        "truth: issue_refund.amount: expected 40 ± 0.01, got 36",
    ),
    "cancel_shipped/1": (
        False,
        {"path"},
        "path: 3 tool calls, step budget is 2 (2 × 1 expected)",
    ),
}
FULL_REASONS = {
    "refund_full/1": {
        "truth": "issue_refund.amount: expected 40 ± 0.01, got 36",
        "state": "orders.A100.refunded: expected 40, got 36",
    },
    "cancel_shipped/1": {"path": "3 tool calls, step budget is 2 (2 × 1 expected)"},
}
# The refused call: OpenAI results carry no error flag (the text starts with "Error");
# Anthropic flags it with is_error.
TOOL_ERRORS = {"openai": "Error: no order #A101", "anthropic": "no order #A101"}


def invoke(*args: str | Path) -> Result:
    result = CliRunner().invoke(main, [str(arg) for arg in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def import_runs(kind: str, output: Path) -> list[dict[str, Any]]:
    result = invoke("import", kind, FORMATS[kind], "-o", output)
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"imported 3 runs with 7 tool calls (1 tool errors, 0 with invalid arguments) to {output}\n"
    )
    return [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("kind", sorted(FORMATS))
def test_import_then_grade_gives_the_designed_outcomes(kind: str, tmp_path: Path) -> None:
    runs_path = tmp_path / "runs.jsonl"
    runs = import_runs(kind, runs_path)
    assert [run["run_id"] for run in runs] == [f"{kind}/{key}" for key in EXPECTED]
    assert [run["task_id"] for run in runs] == [key.split("/")[0] for key in EXPECTED]

    out = tmp_path / "results"
    result = invoke(
        "grade", runs_path, "--tasks", REPO / "tasks", "--out", out, "--no-store", "--json"
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["runs"], report["passed"]) == (3, 1)
    assert report["store"] is None

    failures = {
        failure["run_id"]: failure["reason"]
        for task in report["tasks"]
        for failure in task["failures"]
    }
    assert failures == {
        f"{kind}/{key}": reason for key, (_, _, reason) in EXPECTED.items() if reason is not None
    }

    grades = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [grade["run_id"] for grade in grades] == [f"{kind}/{key}" for key in EXPECTED]
    for grade, (key, (passed, failing, _)) in zip(grades, EXPECTED.items(), strict=True):
        assert grade["passed"] is passed, grade
        # Every task of the shop configures all three graders.
        assert {name for name in ("truth", "path", "state") if not grade[name]["passed"]} == (
            failing
        ), grade
        for name, reason in FULL_REASONS.get(key, {}).items():
            assert grade[name]["reason"] == reason


@pytest.mark.parametrize("kind", sorted(FORMATS))
def test_tool_calls_keep_arguments_results_and_the_refused_call(kind: str, tmp_path: Path) -> None:
    runs = {run["task_id"]: run for run in import_runs(kind, tmp_path / "runs.jsonl")}
    cancel = runs["cancel_shipped"]
    assert [(c["name"], c["args"], c.get("error")) for c in cancel["tool_calls"]] == [
        ("lookup_order", {"order_id": "A101"}, None),
        ("cancel_order", {"order_id": "#A101"}, TOOL_ERRORS[kind]),
        ("cancel_order", {"order_id": "A101"}, None),
    ]
    assert cancel["tool_calls"][0]["result"] == {"status": "shipped", "total": 25, "refunded": 0}
    assert cancel["tool_calls"][2]["result"] == {"ok": True}
    refund = runs["refund_full"]
    assert refund["input"] == "Order A100 arrived broken. Refund it in full."
    assert refund["final_answer"].startswith("I've refunded $36.00 for order A100")
    assert refund["turns"] == 3
    assert refund["final_state"]["orders"]["A100"]["refunded"] == 36


def test_both_files_hold_the_same_conversations(tmp_path: Path) -> None:
    def comparable(run: dict[str, Any]) -> dict[str, Any]:
        # What differs by provider: ids, model, tokens, cost, and the refusal's wording.
        calls = [
            {"name": c["name"], "args": c["args"], "result": c["result"], "failed": "error" in c}
            for c in run["tool_calls"]
        ]
        for call in calls:
            if call["failed"]:
                call["result"] = None
        kept = ("task_id", "trial", "input", "final_answer", "turns", "final_state", "duration_s")
        return {**{key: run.get(key) for key in kept}, "tool_calls": calls}

    openai = import_runs("openai", tmp_path / "openai.jsonl")
    anthropic = import_runs("anthropic", tmp_path / "anthropic.jsonl")
    assert [comparable(run) for run in openai] == [comparable(run) for run in anthropic]
