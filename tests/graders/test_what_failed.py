"""grade's tables say what they count: What failed counts failures (a grader's failed runs of
those it graded), refusals are a share of calls named as such, expected ones too, and at
k = 1 the reliability table shows pass@1 once (exact output at 80 columns)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from judgekit.cli import main

SUITE = """\
suite: desk
tasks:
  - id: unknown_account
    expect_tools:
      - name: find_account
        args: {email: zed@example.com}
    forbid_tools: [reset_password]
  - id: reset
    expect_tools:
      - name: find_account
      - name: reset_password
    order: in_order
"""
REFUSED = {"name": "find_account", "args": {"email": "zed@example.com"}, "error": "no account"}
FOUND = {"name": "find_account", "args": {"email": "ana@example.com"}, "result": {"id": "u1"}}
RESET = {"name": "reset_password", "args": {"account_id": "u1"}, "result": {"ok": True}}
RUNS = [
    # The lookup of an unknown account is refused, as the task expects: both runs pass.
    {"run_id": "u/1", "task_id": "unknown_account", "tool_calls": [REFUSED]},
    {"run_id": "u/2", "task_id": "unknown_account", "tool_calls": [REFUSED]},
    {"run_id": "r/1", "task_id": "reset", "tool_calls": [FOUND, RESET]},
    {"run_id": "r/2", "task_id": "reset", "tool_calls": [FOUND], "final_answer": "Sent."},
]

EXPECTED = """\
Reliability per task

 task              runs   pass@1      95% CI
 ───────────────────────────────────────────
 reset                2     0.50   0.09–0.91
 unknown_account      2     1.00   0.34–1.00

What failed

 task              Truth   Path   State   claims   refused   stopped
 ───────────────────────────────────────────────────────────────────
 reset               1/2      —       —        1        0%         0
 unknown_account     0/2      —       —        0      100%         0
"""
LEGEND = (
    "Truth, Path, State: runs failed / runs graded; claims: failed runs whose answer claims "
    "success; refused: share of tool calls refused, expected or not; — not configured"
)


def grade(tmp_path: Path, *options: str) -> str:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(json.dumps(run) + "\n" for run in RUNS), encoding="utf-8")
    args = ["grade", str(runs), "--tasks", str(tmp_path / "suite.yaml"), "--no-store"]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "out"), *options],
                                env={"COLUMNS": "80"})  # fmt: skip
    assert result.exit_code == 0, result.output
    return "\n".join(line.rstrip() for line in result.output.splitlines()) + "\n"


def test_what_failed_counts_failures_and_names_refusals(tmp_path: Path) -> None:
    out = grade(tmp_path, "--k", "1")
    assert out.startswith(EXPECTED)
    assert LEGEND + "\n" in out
    assert out.count("pass@1") == 3  # the table's column, the suite line, the mean line


def test_at_k_above_one_pass_at_k_and_pass_hat_k_are_columns(tmp_path: Path) -> None:
    out = grade(tmp_path, "--k", "2")
    assert " task              runs   pass@1      95% CI   pass@2   pass^2\n" in out
    assert " unknown_account      2     1.00   0.34–1.00     1.00     1.00\n" in out
