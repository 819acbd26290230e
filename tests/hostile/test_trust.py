"""A suite that names code is code; commands that need only its data import nothing.

`$custom: "os:system"` used to hand the agent's argument to the shell during `grade`, and
`judge --tasks`, `label --tasks`, `labels`/`calibrate --tasks` and `store import --tasks`
imported every `$custom` module of the suite although they need only its inputs and
reference answers. Now `$custom` names a Python function of the user's own source, and
only what grades imports it.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from judgekit import ConfigError, DataError, grade_run, load_tasks
from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.run import Run
from judgekit.testing import FakeLLMServer
from tests.conftest import REPO

RUBRIC = REPO / "rubrics" / "goal_completion.yaml"
REFERENCE = "Reference answer 7f3a: the cache was cleared."


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-trust-0000000000")


@pytest.fixture
def checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A module of checks in the current folder that leaves a marker file when imported:
    its name (new in each test, so no test sees another's import) and the marker's path."""
    name = f"checks_{uuid.uuid4().hex[:10]}"
    marker = tmp_path / f"{name}.imported"
    (tmp_path / f"{name}.py").write_text(
        "from pathlib import Path\n"
        f"Path({str(marker)!r}).write_text('imported')\n"
        "\n"
        "def is_ok(value):\n"
        "    return value == 'ok', f'{value!r} is not ok'\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    yield name, marker
    sys.modules.pop(name, None)


def invoke(*args: str | Path, stdin: str | None = None) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args], input=stdin)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def suite(tmp_path: Path, reference: str) -> Path:
    """Line 7 holds the $custom matcher (the error messages below name it)."""
    path = tmp_path / "tasks.yaml"
    path.write_text(
        "suite: trust\n"
        "tasks:\n"
        "  - id: clean\n"
        "    input: Clear the cache.\n"
        "    expect_tools:\n"
        "      - name: shell\n"
        f"        args: {{cmd: {{$custom: {json.dumps(reference)}}}}}\n"
        f"    reference: {json.dumps(REFERENCE)}\n",
        encoding="utf-8",
    )
    return path


def runs(tmp_path: Path, *commands: str) -> Path:
    path = tmp_path / "runs.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "run_id": f"trust/clean/{trial}",
                    "task_id": "clean",
                    "trial": trial,
                    "tool_calls": [{"name": "shell", "args": {"cmd": command}}],
                    "final_answer": "The cache is clear.",
                }
            )
            + "\n"
            for trial, command in enumerate(commands, start=1)
        ),
        encoding="utf-8",
    )
    return path


def test_custom_os_system_is_refused_and_runs_no_command(tmp_path: Path) -> None:
    owned = tmp_path / "owned"
    tasks = suite(tmp_path, "os:system")
    result = invoke(
        "grade", runs(tmp_path, f"touch {owned}"), "--tasks", tasks, "--out", tmp_path / "out"
    )
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"judgekit: error: {tasks}:7: tasks[0].expect_tools[0].args.cmd.$custom: 'os:system' is "
        "a built-in function; $custom names a Python function defined in your own source "
        "(module:function)\n"
    )
    assert not owned.exists()
    assert not (tmp_path / "out" / "results.jsonl").exists()


@pytest.mark.parametrize(
    ("reference", "kind"),
    [
        ("builtins:eval", "a built-in function"),
        ("builtins:exec", "a built-in function"),
        ("posix:system", "a built-in function"),
        ("subprocess:call", "a standard-library function"),
        ("os:popen", "a standard-library function"),
        ("shutil:rmtree", "a standard-library function"),
        ("subprocess:Popen", "a class"),
        ("builtins:str", "a class"),
        ("pathlib:Path", "a class"),
        ("operator:methodcaller", "a class"),
        ("sys:maxsize", "not a function"),
        ("math:pi", "not a function"),
    ],
)
def test_custom_names_only_a_python_function_of_your_own(
    tmp_path: Path, reference: str, kind: str
) -> None:
    tasks = suite(tmp_path, reference)
    result = invoke("grade", runs(tmp_path, "ls"), "--tasks", tasks, "--out", tmp_path / "out")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"judgekit: error: {tasks}:7: tasks[0].expect_tools[0].args.cmd.$custom: "
        f"{reference!r} is {kind}; $custom names a Python function defined in your own source "
        "(module:function)\n"
    )


def test_a_callable_object_of_your_own_is_not_a_function(
    tmp_path: Path, checks: tuple[str, Path]
) -> None:
    name, _ = checks
    with (tmp_path / f"{name}.py").open("a", encoding="utf-8") as module:
        module.write("\nclass Check:\n    def __call__(self, value):\n        return True\n")
        module.write("\nCHECK = Check()\n")
    tasks = suite(tmp_path, f"{name}:CHECK")
    result = invoke("grade", runs(tmp_path, "ok"), "--tasks", tasks, "--out", tmp_path / "out")
    assert result.stderr == (
        f"judgekit: error: {tasks}:7: tasks[0].expect_tools[0].args.cmd.$custom: "
        f"'{name}:CHECK' is a callable Check object, not a function; $custom names a Python "
        "function defined in your own source (module:function)\n"
    )


def test_grade_runs_a_custom_function_of_your_own(tmp_path: Path, checks: tuple[str, Path]) -> None:
    name, marker = checks
    tasks = suite(tmp_path, f"{name}:is_ok")
    result = invoke(
        "grade",
        runs(tmp_path, "ok", "rm -rf /"),
        "--tasks",
        tasks,
        "--out",
        tmp_path / "out",
        "--no-store",
    )
    assert result.exit_code == 0, result.output
    assert marker.exists()  # grading imports the suite's code, as documented
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").open()]
    assert [row["truth"]["passed"] for row in rows] == [True, False]
    assert f"rejected by {name}:is_ok: 'rm -rf /' is not ok" in rows[1]["truth"]["reason"]


def test_a_suite_loaded_without_code_imports_nothing_and_cannot_grade(
    tmp_path: Path, checks: tuple[str, Path]
) -> None:
    name, marker = checks
    tasks = load_tasks(suite(tmp_path, f"{name}:is_ok"), resolve_code=False)
    task = tasks.get("clean")
    assert task is not None and task.reference == REFERENCE
    assert not marker.exists()
    run = Run.model_validate(json.loads(runs(tmp_path, "ok").read_text()))
    with pytest.raises(ConfigError) as caught:
        grade_run(run, task)
    assert str(caught.value) == (
        f"$custom '{name}:is_ok' was not imported: its task was loaded without code "
        "(resolve_code=False); load the tasks with resolve_code=True to grade"
    )
    assert not marker.exists()


def test_a_suite_loaded_without_code_still_checks_the_form_of_a_reference(tmp_path: Path) -> None:
    path = suite(tmp_path, "no colon")
    with pytest.raises(DataError) as caught:
        load_tasks(path, resolve_code=False)
    assert str(caught.value) == (
        f"{path}:7: tasks[0].expect_tools[0].args.cmd: $custom must be 'module:name', got "
        "'no colon'"
    )


def test_judge_with_tasks_reads_the_references_and_imports_nothing(
    tmp_path: Path, checks: tuple[str, Path]
) -> None:
    name, marker = checks
    tasks = suite(tmp_path, f"{name}:is_ok")
    with FakeLLMServer() as server:
        result = invoke(
            "judge",
            runs(tmp_path, "ok"),
            "--rubric",
            RUBRIC,
            "--tasks",
            tasks,
            "--base-url",
            server.openai_base_url,
            "--out",
            tmp_path / "out",
            "--no-store",
            "--json",
        )
        [request] = server.requests
    assert result.exit_code == 0, result.output
    assert REFERENCE in request.messages[-1]["content"]
    assert not marker.exists()


def store_import(tmp_path: Path, tasks: Path, *files: Path) -> Result:
    return invoke("store", "import", *files, "--tasks", tasks)


def results_file(tmp_path: Path) -> Path:
    """A results.jsonl graded with a suite that names no code."""
    plain = tmp_path / "plain.yaml"
    plain.write_text(
        "suite: trust\ntasks:\n  - id: clean\n    expect_tools: [{name: shell}]\n",
        encoding="utf-8",
    )
    out = tmp_path / "graded"
    graded = invoke(
        "grade", runs(tmp_path, "ok"), "--tasks", plain, "--out", out, "--no-store", "--json"
    )
    assert graded.exit_code == 0, graded.output
    return out / "results.jsonl"


def test_store_import_of_results_reads_the_suite_and_imports_nothing(
    tmp_path: Path, checks: tuple[str, Path]
) -> None:
    name, marker = checks
    results = results_file(tmp_path)
    result = store_import(tmp_path, suite(tmp_path, f"{name}:is_ok"), results)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{results}: 1 grades recorded")
    assert not marker.exists()


def test_store_import_of_runs_grades_them_and_so_imports_the_code(
    tmp_path: Path, checks: tuple[str, Path]
) -> None:
    name, marker = checks
    run_file = runs(tmp_path, "ok")
    result = store_import(tmp_path, suite(tmp_path, f"{name}:is_ok"), run_file)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{run_file}: 1 runs and 1 grades recorded")
    assert marker.exists()


def test_label_with_tasks_shows_the_input_and_imports_nothing(
    tmp_path: Path, checks: tuple[str, Path]
) -> None:
    name, marker = checks
    result = invoke(
        "label",
        runs(tmp_path, "ok"),
        "--rubric",
        RUBRIC,
        "--labeler",
        "ana",
        "--tasks",
        suite(tmp_path, f"{name}:is_ok"),
        "--labels-dir",
        tmp_path / "labels",
        stdin="p\n",
    )
    assert result.exit_code == 0, result.output
    assert "Clear the cache." in result.stdout  # the task's input, read from the suite
    [label] = [json.loads(line) for line in (tmp_path / "labels" / "goal_completion.jsonl").open()]
    assert (label["run_id"], label["label"]) == ("trust/clean/1", "pass")
    assert not marker.exists()


def test_labels_and_calibrate_with_tasks_read_the_inputs_and_import_nothing(
    tmp_path: Path, checks: tuple[str, Path]
) -> None:
    name, marker = checks
    run_file = runs(tmp_path, "ok")
    tasks = suite(tmp_path, f"{name}:is_ok")
    labels = tmp_path / "labels"
    labelled = invoke(
        "label",
        run_file,
        "--rubric",
        RUBRIC,
        "--labeler",
        "ana",
        "--tasks",
        tasks,
        "--labels-dir",
        labels,
        stdin="p\n",
    )
    assert labelled.exit_code == 0, labelled.output
    summary = invoke(
        "labels",
        "--rubric",
        RUBRIC,
        "--labels-dir",
        labels,
        "--runs",
        run_file,
        "--tasks",
        tasks,
        "--json",
    )
    assert summary.exit_code == 0, summary.output
    # Not stale: the item was hashed with the suite's input, as the labeller saw it.
    assert json.loads(summary.stdout)["labelers"]["ana"]["stale"] == 0
    verdicts = tmp_path / "verdicts.jsonl"
    verdict = {
        "run_id": "trust/clean/1",
        "rubric_id": "goal_completion",
        "rubric_version": rubric_version(load_rubric(RUBRIC)),
        "model": "openai/gpt-4o-mini",
        "status": "scored",
        "score": "pass",
        "at": "2026-11-29T10:00:00+00:00",
    }
    verdicts.write_text(json.dumps(verdict) + "\n", encoding="utf-8")
    report = invoke(
        "calibrate",
        "--rubric",
        RUBRIC,
        "--labels",
        labels / "goal_completion.jsonl",
        "--verdicts",
        verdicts,
        "--runs",
        run_file,
        "--tasks",
        tasks,
        "--no-store",
        "--json",
        "--split",
        "all",  # the one label, whichever side it is on
    )
    assert report.exit_code in (0, 1), report.output  # 1: not promotable on one label
    calibration = json.loads(report.stdout)
    assert (calibration["n"], calibration["stale_labels"]) == (1, [])
    assert not marker.exists()
