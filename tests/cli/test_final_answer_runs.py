"""Runs of plain final answers: judged from JSONL, CSV or a folder, graded with Truth and
Path saying they had nothing to check, refused by grade without a task."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from judgekit.cli import main
from judgekit.testing import FakeLLMServer
from tests.conftest import REPO

ANSWERS = REPO / "examples" / "answers"
RUBRIC = ANSWERS / "correct_answer.yaml"
PASS = '{"reason": "agrees with the reference", "score": "pass"}'
SUITE = """\
suite: qa
tasks:
  - id: capital
    input: "Capital of France?"
    expect_answer: [Paris]
    forbid_tools: [web_search]
    max_calls: {web_search: 1}
  - id: no_tools
    input: "Answer without looking anything up."
    expect_tools: []
    order: strict
    max_calls: {web_search: 1}
"""
NOTHING = "nothing to check: the run made no tool call and the task expects none"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def judged(runs: Path, out: Path, server: FakeLLMServer, *options: str) -> list[dict[str, object]]:
    code, stdout, stderr = invoke(
        *("judge", runs, "--rubric", RUBRIC, "--base-url", server.openai_base_url),
        *("--out", out, "--no-store", *options),
    )
    assert (code, stderr) == (0, ""), stdout
    lines = (out / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_answers_are_judged_from_jsonl_csv_or_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "run-out"
    folder.mkdir()
    shutil.copy(ANSWERS / "answers.jsonl", folder / "runs.jsonl")
    with FakeLLMServer(reply=lambda request: PASS) as server:
        first = judged(ANSWERS / "answers.jsonl", tmp_path / "a", server)
        second = judged(ANSWERS / "answers.csv", tmp_path / "b", server)
        third = judged(folder, tmp_path / "c", server)
        assert server.calls == 6  # the same answers: the CSV and the folder hit the cache
        prompt = server.requests[0].body["messages"][1]["content"]
    ids = [f"support/{n}" for n in range(1, 7)]
    for verdicts in (first, second, third):
        assert sorted(str(v["run_id"]) for v in verdicts) == ids
        assert {v["score"] for v in verdicts} == {"pass"}
    # the same content, whichever file it came from: the same digest
    digests = [{v["run_id"]: v["input_digest"] for v in verdicts} for verdicts in (first, second)]
    assert digests[0] == digests[1]
    assert "<untrusted_reference>\n" in prompt


def test_a_csv_error_names_the_file_line_and_columns(tmp_path: Path) -> None:
    bad = tmp_path / "answers.csv"
    bad.write_text("run_id,question,final_answer\nq1,a,b\n", encoding="utf-8")
    code, _, stderr = invoke("judge", bad, "--rubric", RUBRIC, "--out", tmp_path / "out")
    assert code == 2
    assert stderr == (
        f"judgekit: error: {bad}:1: unknown column 'question'; the columns are run_id, input, "
        "final_answer, reference, task_id (the last two optional)\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_folder_without_runs_is_refused_by_name(tmp_path: Path) -> None:
    code, _, stderr = invoke("judge", tmp_path, "--rubric", RUBRIC, "--dry-run")
    assert (code, stderr) == (2, f"judgekit: error: {tmp_path}: no runs.jsonl in this folder\n")


def test_grade_refuses_a_run_without_a_task_naming_its_line(tmp_path: Path) -> None:
    code, _, stderr = invoke(
        "grade", ANSWERS / "answers.jsonl", "--tasks", REPO / "tasks", "--out", tmp_path / "out"
    )
    assert code == 2
    assert stderr == (
        f"judgekit: error: {ANSWERS / 'answers.jsonl'}:1: task_id: run 'support/1' has no "
        "task_id: grading checks a run against its task; add task_id to the run, or judge it "
        "(judgekit judge) instead\n"
    )
    assert not (tmp_path / "out").exists()


def grade(tmp_path: Path, *runs: dict[str, object]) -> tuple[str, list[dict[str, object]]]:
    suite = tmp_path / "qa.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    file = tmp_path / "runs.jsonl"
    file.write_text("".join(json.dumps(run) + "\n" for run in runs), encoding="utf-8")
    out = tmp_path / "out"
    code, stdout, stderr = invoke(
        "grade", file, "--tasks", suite, "--out", out, "--no-store", "--json"
    )
    assert (code, stderr) == (0, "")
    results = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return stdout, [json.loads(line) for line in results]


def test_truth_and_path_have_nothing_to_check_on_a_plain_answer(tmp_path: Path) -> None:
    summary, results = grade(
        tmp_path,
        {"run_id": "c1", "task_id": "capital", "final_answer": "Paris."},
        {"run_id": "c2", "task_id": "capital", "final_answer": "Lyon."},
        {
            "run_id": "c3",
            "task_id": "capital",
            "final_answer": "Paris.",
            "tool_calls": [{"name": "lookup", "args": {"q": "capital of France"}}],
        },
        {"run_id": "n1", "task_id": "no_tools", "final_answer": "Done."},
    )
    nothing = {"passed": None, "reason": NOTHING}
    assert [(r["run_id"], r["passed"], r["truth"], r["path"]) for r in results] == [
        ("c1", True, nothing, nothing),
        ("c2", False, nothing, nothing),
        (
            "c3",
            True,
            {"passed": True, "reason": "no forbidden or disallowed tool called"},
            {"passed": True, "reason": "1 calls, 0 tool errors, no duplicates or loops"},
        ),
        # "no tool call at all" is asked: Truth checks it; Path has nothing to check
        ("n1", True, {"passed": True, "reason": "no tool call, as expected"}, nothing),
    ]
    tasks = {task["task_id"]: task for task in json.loads(summary)["tasks"]}
    assert tasks["capital"]["truth"] == {"passed": 1, "graded": 1, "nothing_to_check": 2}
    assert tasks["capital"]["path"] == {"passed": 1, "graded": 1, "nothing_to_check": 2}
    assert tasks["no_tools"]["truth"] == {"passed": 1, "graded": 1}
    assert tasks["no_tools"]["path"] == {"passed": 0, "graded": 0, "nothing_to_check": 1}


def test_the_what_failed_table_says_unchecked(tmp_path: Path) -> None:
    suite = tmp_path / "qa.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        '{"run_id": "c1", "task_id": "capital", "final_answer": "Paris."}\n'
        '{"run_id": "c2", "task_id": "capital", "final_answer": "Lyon.", '
        '"tool_calls": [{"name": "lookup"}]}\n'
        '{"run_id": "n1", "task_id": "no_tools", "final_answer": "Done."}\n',
        encoding="utf-8",
    )
    code, out, _ = invoke("grade", runs, "--tasks", suite, "--out", tmp_path / "o", "--no-store")
    assert code == 0
    lines = [line.rstrip() for line in out.splitlines()]
    start = lines.index("What failed")
    assert lines[start + 2 : start + 6] == [
        " task        Truth        Path   State   Answer   claims   refused   stopped",
        " ───────────────────────────────────────────────────────────────────────────",
        " capital    0/1 +1      0/1 +1       —      1/2        1        0%         0",
        " no_tools      0/1   unchecked       —        —        0         —         0",
    ]
    assert (
        "Truth, Path, State, Answer: runs failed / runs graded; claims: failed runs whose "
        "answer claims success; refused: share of tool calls refused, expected or not; — not "
        "configured; unchecked, +N: runs with nothing to check, no tool call made or expected"
    ) in lines
