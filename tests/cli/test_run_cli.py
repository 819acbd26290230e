"""`judgekit run` and `judgekit gate` as the README shows them."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import pytest
from click.testing import CliRunner

from examples.shop import agent as shop_agent
from judgekit import Task, World
from judgekit.cli import main
from tests.conftest import REPO

SHOP = str(REPO / "tasks" / "shop.yaml")


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def double_refunding_agent(task: Task, world: World) -> str:
    """The stub, except that every full refund is issued twice (a regression)."""
    answer = shop_agent(task, world)
    if task.id == "refund_full" and len(world.calls) == 2:
        world.call("issue_refund", order_id="A100", amount=40)
    return answer


def test_run_json_and_baseline(tmp_path: Path) -> None:
    out = tmp_path / "out"
    baseline = tmp_path / "baseline.jsonl"
    code, stdout, _ = invoke(
        "run",
        "--tasks",
        SHOP,
        "--agent",
        "examples.shop:agent",
        "--trials",
        "30",
        "--out",
        out,
        "--save-baseline",
        baseline,
        "--json",
    )
    assert code == 0
    report = json.loads(stdout)
    assert (report["runs"], report["k"]) == (120, 5)
    refund = next(t for t in report["tasks"] if t["task_id"] == "refund_full")
    assert refund["runs"] == 30
    assert refund["pass_at_1"] == refund["passed"] / 30
    assert refund["turns"]["mean"] is not None and refund["cost_usd"]["worst"] == 0.0016
    # The suite's pass@5 and pass^5: the mean over the 4 tasks of each one's estimator.
    passed = [t["passed"] for t in report["tasks"]]
    assert passed == [21, 23, 21, 17]
    assert report["mean_over_tasks"] == {
        "k": 5,
        "tasks": 4,
        "left_out": [],
        "pass_at_k": pytest.approx(sum(1 - comb(30 - c, 5) / comb(30, 5) for c in passed) / 4),
        "pass_hat_k": pytest.approx(sum(comb(c, 5) / comb(30, 5) for c in passed) / 4),
    }
    assert baseline.read_text() == (out / "results.jsonl").read_text()
    assert len((out / "runs.jsonl").read_text().splitlines()) == 120


def test_gate_passes_the_same_agent_and_fails_a_regression(tmp_path: Path) -> None:
    common = ["--tasks", SHOP, "--trials", "30", "--json"]
    invoke("run", *common, "--agent", "examples.shop:agent", "--out", tmp_path / "base")
    invoke("run", *common, "--agent", "examples.shop:agent", "--out", tmp_path / "same")
    agent = "tests.cli.test_run_cli:double_refunding_agent"
    invoke("run", *common, "--agent", agent, "--out", tmp_path / "worse")
    code, out, _ = invoke("gate", "--baseline", tmp_path / "base", "--candidate", tmp_path / "same")
    assert code == 0, out
    assert out.splitlines()[-1] == "gate: pass: 4 tasks compared, none worse than the baseline"
    code, out, _ = invoke(
        "gate", "--baseline", tmp_path / "base", "--candidate", tmp_path / "worse"
    )
    assert code == 1
    assert out.splitlines()[-1] == "gate: FAIL: 1 of 4 tasks failed: refund_full"


def test_run_refuses_both_or_neither_agent(tmp_path: Path) -> None:
    code, _, err = invoke("run", "--tasks", SHOP, "--out", tmp_path)
    assert code == 2
    assert (
        err
        == "judgekit: error: give exactly one of --agent module:function or --agent-cmd 'COMMAND'\n"
    )
    code, _, err = invoke(
        "run", "--tasks", SHOP, "--agent", "examples.nope:agent", "--out", tmp_path
    )
    assert code == 2
    assert err.startswith("judgekit: error: --agent cannot import module 'examples.nope'")
