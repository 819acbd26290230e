"""`judgekit import bfcl` on BFCL's own three files, rebuilt from the real entries.

The shared data holds one merged line per entry; the test splits a category back into the
files BFCL writes (results, possible answers, questions), imports them from the command line
and grades the two files it writes, which must give the same verdicts as the library.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.run import load_runs
from judgekit.formats.task import load_tasks
from judgekit.graders.truth import grade_truth
from judgekit.importers.bfcl_files import category_of
from tests.conftest import shared_data_path


def _split(merged: Path, folder: Path) -> tuple[Path, Path, Path]:
    entries = [json.loads(line) for line in merged.read_text().splitlines()]
    files = (folder / "result.json", folder / "answers.json", folder / "questions.json")
    fields = (
        lambda e: {"id": e["id"], "result": e["model_result_raw"]},
        lambda e: {"id": e["id"], "ground_truth": e["possible_answer"]},
        lambda e: {"id": e["id"], "question": e["question"], "function": e["function"]},
    )
    for path, field in zip(files, fields, strict=True):
        path.write_text("".join(json.dumps(field(e)) + "\n" for e in entries))
    return files


def _import(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["import", "bfcl", *map(str, args)])
    return result.exit_code, result.output


def test_import_bfcl_writes_runs_and_a_suite_grade_reads(tmp_path: Path) -> None:
    merged = shared_data_path("bfcl", "glyphh-ada-1.1", "simple_java.jsonl")
    results, answers, questions = _split(merged, tmp_path)
    runs_file, suite_file = tmp_path / "runs.jsonl", tmp_path / "tasks.yaml"
    code, output = _import(
        results, "--answers", answers, "--entries", questions,
        "-o", runs_file, "--suite-out", suite_file,
    )  # fmt: skip
    assert code == 0, output
    assert output == (
        f"imported 100 runs with 100 tool calls (0 tool errors, 0 with invalid arguments) "
        f"to {runs_file}\nwrote 100 tasks to {suite_file}\n"
    )
    tasks = load_tasks(suite_file)
    verdicts = {}
    for run in load_runs(runs_file):
        task = tasks.get(run.task_id)
        assert task is not None
        truth = grade_truth(run, task)
        assert truth is not None
        verdicts[run.run_id] = truth.passed
    # The figures of test_bfcl.py for simple_java: 72 pass, 96 of 100 agree with BFCL.
    valid = {e["id"]: e["bfcl_valid"] for e in map(json.loads, merged.read_text().splitlines())}
    assert sum(verdicts.values()) == 72
    assert sum(verdicts[i] is valid[i] for i in valid) == 96


def test_merged_lines_need_no_answer_or_question_file(tmp_path: Path) -> None:
    merged = shared_data_path("bfcl", "glyphh-ada-1.1", "parallel.jsonl")
    code, output = _import(
        merged, "-o", tmp_path / "runs.jsonl", "--suite-out", tmp_path / "t.yaml"
    )
    assert code == 0, output
    assert "wrote 200 tasks" in output


def test_an_entry_without_an_answer_names_the_file_and_line(tmp_path: Path) -> None:
    results = tmp_path / "result.json"
    results.write_text(
        '{"id": "simple_python_0", "result": []}\n{"id": "simple_python_1", "result": []}\n'
    )
    answers = tmp_path / "answers.json"
    answers.write_text('{"id": "simple_python_0", "ground_truth": []}\n')
    questions = tmp_path / "questions.json"
    questions.write_text(
        '{"id": "simple_python_0", "function": []}\n{"id": "simple_python_1", "function": []}\n'
    )
    code, output = _import(
        results, "--answers", answers, "--entries", questions,
        "-o", tmp_path / "runs.jsonl", "--suite-out", tmp_path / "t.yaml",
    )  # fmt: skip
    assert code == 2
    assert not (tmp_path / "runs.jsonl").exists() and not (tmp_path / "t.yaml").exists()
    assert output == (
        f"judgekit: error: {results}:2: id: entry 'simple_python_1' has no line in {answers} "
        "(is it the same category?)\n"
    )


def test_a_result_without_answers_says_which_option_gives_them(tmp_path: Path) -> None:
    results = tmp_path / "result.json"
    results.write_text('{"id": "live_simple_3-2-0", "result": []}\n')
    code, output = _import(results, "--suite-out", tmp_path / "t.yaml")
    assert code == 2
    assert output == (
        f"judgekit: error: {results}:1: possible_answer: entry 'live_simple_3-2-0' has no "
        "possible_answer; give BFCL's file of them with --answers\n"
    )


def test_the_category_is_read_from_the_id() -> None:
    assert category_of("simple_python_12") == "simple_python"
    assert category_of("live_parallel_multiple_3-2-0") == "live_parallel_multiple"
    assert category_of("java_7") == "java"
