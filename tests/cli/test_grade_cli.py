"""`judgekit grade`: the table, the result files, and clean refusals of bad input."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from tests.conftest import REPO

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
TRAVEL_RUNS = REPO / "examples" / "runs" / "travel.jsonl"
TASKS = REPO / "tasks"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_grade_writes_results_and_prints_the_table(tmp_path: Path) -> None:
    code, out, _ = invoke("grade", SHOP_RUNS, "--tasks", TASKS, "--out", tmp_path, "--reasons")
    assert code == 0
    assert "Reliability per task" in out
    assert "suite: 5/18 runs passed, pass@1 0.28 (95% CI 0.12–0.51)" in out
    # --k defaults to the fewest runs of any task (3), so every task counts in the mean:
    # (n, c) = (4, 1), (5, 2), (6, 1), (3, 1); pass@3 = 1 − C(n−c, 3)/C(n, 3) = 0.75, 0.9,
    # 0.5, 1 → 0.7875; no task passed 3 times, so pass^3 = 0.
    assert "suite, mean over 4 tasks: pass@3 0.79, pass^3 0.00" in out.splitlines()
    assert (
        "failing tasks (4 of 4): cancel_shipped, refund_and_notify, refund_full, refuse_overrefund"
        in out
    )
    assert "shop/refund_full/2 path: issue_refund called 2 times, max_calls is 1" in out
    rows = list(csv.DictReader((tmp_path / "results.csv").open(encoding="utf-8")))
    assert len(rows) == 18
    assert rows[0] == {
        "run_id": "shop/refund_full/1",
        "task_id": "refund_full",
        "trial": "1",
        "passed": "true",
        "truth_passed": "true",
        "truth_reason": "all 2 expected calls matched (in_order)",
        "path_passed": "true",
        "path_reason": "2 calls, 0 tool errors, no duplicates or loops, within budget 4",
        "state_passed": "true",
        "state_reason": "1 state check passed; no change outside [orders.A100.refunded]",
        "answer_passed": "",  # not configured: the shop suite sets no expect_answer
        "answer_reason": "",
        "claimed_success": "true",
        "violations": "",
        "turns": "3",
        "cost_usd": "0.0016",
        "stop_reason": "completed",
        "tool_calls": "2",
        "tool_errors": "0",
    }
    grades = [json.loads(line) for line in (tmp_path / "results.jsonl").open(encoding="utf-8")]
    assert [g["run_id"] for g in grades] == [r["run_id"] for r in rows]
    assert grades[3]["truth"] == {
        "passed": False,
        "reason": "issue_refund: invalid arguments (not valid JSON: Expecting ',' delimiter: line 1 column 33 (char 32))",
    }


def test_grade_json_report(tmp_path: Path) -> None:
    code, out, _ = invoke("grade", TRAVEL_RUNS, "--tasks", TASKS, "--out", tmp_path, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["runs"] == 17
    assert report["passed"] == 6
    weather = next(t for t in report["tasks"] if t["task_id"] == "weather-gate-book")
    assert weather["truth"] == {"passed": 3, "graded": 6}
    assert weather["path"] == {"passed": 4, "graded": 6}
    assert weather["state"] == {"passed": 4, "graded": 6}
    assert weather["claimed_success_but_failed"] == 4
    assert report["failing_tasks"] == [
        "ambiguous-needs-search",
        "no-book-when-raining",
        "search-before-book",
        "weather-gate-book",
        "weather-only",
    ]


def test_grade_k_beyond_some_tasks_runs_leaves_them_out_of_the_suite_mean(
    tmp_path: Path,
) -> None:
    # travel's (runs, passed): ambiguous-needs-search (2, 1), no-book-when-raining (2, 1),
    # search-before-book (4, 1), weather-gate-book (6, 2), weather-only (3, 1). At k = 3 the
    # two 2-run tasks have no estimator; pass@3 = 1 − C(n−c, 3)/C(n, 3) over the other three:
    # (1 − 1/4 + 1 − 4/20 + 1) / 3 = 0.85; pass^3 = 0 (no task has 3 passes).
    code, out, _ = invoke("grade", TRAVEL_RUNS, "--tasks", TASKS, "--out", tmp_path, "--k", "3")
    assert code == 0
    assert (
        "suite, mean over 3 of 5 tasks: pass@3 0.85, pass^3 0.00; left out, fewer than 3 runs: "
        "ambiguous-needs-search, no-book-when-raining"
    ) in out.splitlines()
    code, out, _ = invoke(
        "grade", TRAVEL_RUNS, "--tasks", TASKS, "--out", tmp_path, "--k", "3", "--json"
    )
    assert code == 0
    assert json.loads(out)["mean_over_tasks"] == {
        "k": 3,
        "tasks": 3,
        "left_out": ["ambiguous-needs-search", "no-book-when-raining"],
        "pass_at_k": pytest.approx(0.85, abs=1e-15),
        "pass_hat_k": 0.0,
    }
    code, out, _ = invoke("grade", TRAVEL_RUNS, "--tasks", TASKS, "--out", tmp_path, "--k", "7")
    assert code == 0
    assert (
        "suite, mean over tasks: pass@7 and pass^7 undefined (every task has fewer than 7 runs)"
        in out.splitlines()
    )


def test_unknown_task_is_an_error_unless_skipped(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        SHOP_RUNS.read_text(encoding="utf-8")
        + json.dumps({"run_id": "x", "task_id": "nope", "tool_calls": []})
        + "\n",
        encoding="utf-8",
    )
    out_dir = tmp_path / "out"
    code, _, err = invoke("grade", runs, "--tasks", TASKS, "--out", out_dir)
    assert code == 2
    assert err == (
        f"judgekit: error: {runs}:19: task_id: unknown task id 'nope' (not in the loaded suites; "
        "pass --skip-unknown to pass such runs over)\n"
    )
    assert not out_dir.exists() or list(out_dir.iterdir()) == []
    code, out, _ = invoke(
        "grade", runs, "--tasks", TASKS, "--out", out_dir, "--skip-unknown", "--json"
    )
    assert code == 0 and json.loads(out)["runs"] == 18


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '{"run_id": "x", "task_id": "refund_full", "tool_calls": [}',
            "malformed JSON: expected value at line 1 column 58",
        ),
        (
            '{"run_id": "x", "tool_calls": []}',
            "task_id: run 'x' has no task_id: grading checks a run against its task; add "
            "task_id to the run, or judge it (judgekit judge) instead",
        ),
        (
            '{"run_id": "x", "task_id": "refund_full", "tool_calls": [{"args": {}}]}',
            "tool_calls.0.name: required field is missing",
        ),
        (
            '{"run_id": "x", "task_id": "refund_full", "tool_calls": [], "stop_reason": "done"}',
            "stop_reason: Input should be 'completed', 'max_turns', 'max_tool_calls', 'max_cost', 'timeout' or 'error' (got 'done')",
        ),
        (
            '{"run_id": "x", "task_id": "refund_full", "tool_calls": [], "extra": 1}',
            "extra: unknown field (check the spelling against `judgekit schema`)",
        ),
    ],
)
def test_bad_runs_exit_2_and_write_nothing(tmp_path: Path, line: str, message: str) -> None:
    runs = tmp_path / "runs.jsonl"
    good = SHOP_RUNS.read_text(encoding="utf-8").splitlines()[:2]
    runs.write_text("\n".join([*good, line]) + "\n", encoding="utf-8")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "results.csv").write_text("previous\n", encoding="utf-8")
    code, _, err = invoke("grade", runs, "--tasks", TASKS, "--out", out_dir)
    assert code == 2
    assert err == f"judgekit: error: {runs}:3: {message}\n"
    # the earlier results file is untouched and no partial file appears (the folder's lock
    # file stays, empty: see judgekit/_util/folder_lock.py)
    assert sorted(p.name for p in out_dir.iterdir()) == [".judgekit.lock", "results.csv"]
    assert (out_dir / ".judgekit.lock").read_bytes() == b""
    assert (out_dir / "results.csv").read_text(encoding="utf-8") == "previous\n"


def test_bad_task_file_is_one_line_without_traceback(tmp_path: Path) -> None:
    suite = tmp_path / "bad.yaml"
    suite.write_text("suite: s\ntasks:\n  - id: a\n    forbid_tools: book\n", encoding="utf-8")
    env = {**os.environ, "JUDGEKIT_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "judgekit",
            "grade",
            str(SHOP_RUNS),
            "--tasks",
            str(suite),
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"judgekit: error: {suite}:4: tasks[0].forbid_tools: Input should be a valid list (got 'book')\n"
    )
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "results.jsonl").exists()


def test_schema_command_prints_each_format() -> None:
    for name, required in [
        ("run", ["run_id"]),
        ("task", ["suite", "tasks"]),
        ("rubric", ["id", "scale", "prompt", "judge"]),
        ("label", ["run_id", "rubric_id", "label", "labeler", "at"]),
    ]:
        code, out, _ = invoke("schema", name)
        assert code == 0
        schema = json.loads(out)
        assert schema["required"] == required
        assert schema["title"] == f"judgekit {name}"
    code, _, err = invoke("schema", "nope")
    assert code == 2 and "Invalid value for '{grade|label|rubric|run|task|verdict}'" in err


def test_the_tours_grade_output_is_what_the_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (REPO / "docs" / "walkthrough.md").read_text(encoding="utf-8")
    command = "$ judgekit grade examples/runs/travel.jsonl --tasks tasks --out results --reasons\n"
    start = readme.index(command) + len(command)
    shown = readme[start : readme.index("```", start)]
    monkeypatch.chdir(tmp_path)
    code, out, _ = invoke("grade", TRAVEL_RUNS, "--tasks", TASKS, "--out", "results", "--reasons")
    assert code == 0
    # The page cannot show where the store is; the command adds that one line.
    store = tmp_path / ".judgekit" / "judgekit.sqlite"
    assert [line.rstrip() for line in out.splitlines()] == [
        *shown.splitlines(),
        f"recorded 17 grades in the store sqlite:///{store} (batch 1)",
    ]
