"""Subprocess agents end to end: the example coding tasks, run by a scripted stand-in agent.

Every test goes through ``run_trials`` and reads what it wrote, as a user would.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from judgekit import ConfigError, TaskSet, load_tasks
from judgekit.trials.command_template import CommandTemplate
from judgekit.trials.runner import run_trials
from judgekit.trials.subprocess_agent import subprocess_trials
from judgekit.trials.workdir import digest_protected, protected_violations
from tests.conftest import REPO

EXAMPLE = REPO / "examples" / "coding"
AGENT = shlex.join([sys.executable, str(EXAMPLE / "scripted_agent.py")]) + " {workdir} {prompt}"
CART_PROMPT = "Fix cart.py so SAVE10 applies from 5000 cents on, in whole cents."
SLUG_PROMPT = "Make slugify() match its docstring."


@pytest.fixture(autouse=True)
def _fast_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    # The hidden graders run pytest; autoloading this environment's plugins (hypothesis)
    # costs two seconds per check. The checks inherit the environment.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("SCRIPTED_AGENT_MODE", raising=False)


def custom_suite(tmp_path: Path, tasks_yaml: str) -> TaskSet:
    """A suite beside a copy of the example task folders (so relative paths resolve)."""
    folder = tmp_path / "coding"
    shutil.copytree(EXAMPLE, folder)
    path = folder / "custom.yaml"
    path.write_text(
        "suite: coding\n"
        "defaults:\n"
        "  check: '{python} -m pytest -q -p no:cacheprovider hidden_test.py'\n"
        "tasks:\n" + tasks_yaml,
        encoding="utf-8",
    )
    return load_tasks(path)


def cart_task(mode: str = "solve", extra: str = "") -> str:
    return (
        f"  - id: cart-discount\n    input: '[mode:{mode}] {CART_PROMPT}'\n"
        "    workdir: cart-discount/repo\n    hidden: [cart-discount/hidden_test.py]\n" + extra
    )


def slugify_task(mode: str = "solve") -> str:
    return (
        f"  - id: slugify\n    input: '[mode:{mode}] {SLUG_PROMPT}'\n"
        "    workdir: slugify/repo\n    hidden: [slugify/hidden_test.py]\n"
    )


def evaluate(
    tasks: TaskSet,
    out: Path,
    *,
    command: str = AGENT,
    timeout_s: float = 10,
    check_timeout_s: float = 30,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Run every task once; the recorded runs and results, by task id."""
    trial = subprocess_trials(tasks, command, timeout_s=timeout_s, check_timeout_s=check_timeout_s)
    run_trials(tasks, trial, trials=1, out_dir=out, concurrency=2)
    runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return {r["task_id"]: r for r in runs}, {r["task_id"]: r for r in results}


def test_example_suite_resolves_paths_and_defaults() -> None:
    tasks = load_tasks(EXAMPLE / "tasks.yaml")
    cart = tasks.get("cart-discount")
    assert cart is not None
    assert cart.base_dir == EXAMPLE
    assert cart.resolve_path(cart.workdir or "") == EXAMPLE / "cart-discount" / "repo"
    assert cart.protected == ["test_*.py", "**/test_*.py"]
    assert cart.expect_state == {"check.passed": True}
    assert cart.has_state and not cart.has_truth and not cart.has_path


def test_solving_agent_passes_and_never_sees_the_hidden_test(tmp_path: Path) -> None:
    tasks = load_tasks(EXAMPLE / "tasks.yaml")
    runs, results = evaluate(tasks, tmp_path / "out")
    for task_id in ("cart-discount", "slugify"):
        assert results[task_id]["passed"] is True
        assert results[task_id]["state"] == {"passed": True, "reason": "1 state check passed"}
        run = runs[task_id]
        assert run["stop_reason"] == "completed"
        assert run["violations"] == []
        assert run["final_state"]["check"]["passed"] is True
        assert run["final_state"]["check"]["exit_code"] == 0
        assert run["metadata"]["exit_code"] == 0
        # The agent looked for hidden_test.py in its workdir while it ran.
        assert run["metadata"]["output"].startswith(
            "hidden_test.py visible: no\ncwd is workdir: yes\n"
        )
    slug = runs["slugify"]
    assert slug["final_answer"] == "edited text.py, test_slugify_more.py"  # a new test is fine
    assert [call["name"] for call in slug["tool_calls"]] == ["write_file", "write_file"]
    assert slug["usage"] == {"input_tokens": 1200, "output_tokens": 300}
    assert (slug["cost_usd"], slug["turns"]) == (0.0042, 3)


def test_a_hung_agent_times_out_and_the_evaluation_goes_on(tmp_path: Path) -> None:
    tasks = custom_suite(tmp_path, cart_task("hang", "    timeout_s: 1\n") + slugify_task())
    started = time.monotonic()
    runs, results = evaluate(tasks, tmp_path / "out", timeout_s=10)
    assert time.monotonic() - started < 8  # the task's 1 s, not the default 10 s
    hung = runs["cart-discount"]
    assert hung["stop_reason"] == "timeout"
    assert hung["metadata"]["stop_detail"] == "no exit within 1 s; process group killed"
    assert "exit_code" not in hung["metadata"]
    assert hung["final_answer"] is None
    assert 1 <= hung["duration_s"] < 5
    assert results["cart-discount"]["passed"] is False
    assert results["slugify"]["passed"] is True
    # The agent's child process was killed with it (same process group).
    child = int(hung["metadata"]["output"].split("child pid: ")[1].split()[0])
    assert not _alive(child)


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie awaiting its reaper counts as dead)."""
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status")
        try:
            state = next(
                line for line in status.read_text().splitlines() if line.startswith("State")
            )
        except FileNotFoundError:
            return False
        if "zombie" in state:
            return False
        time.sleep(0.05)
    return True


def test_a_crash_is_an_error_with_its_exit_code_and_output(tmp_path: Path) -> None:
    tasks = custom_suite(tmp_path, cart_task("crash"))
    runs, results = evaluate(tasks, tmp_path / "out")
    run = runs["cart-discount"]
    assert run["stop_reason"] == "error"
    assert run["metadata"]["exit_code"] == 3
    assert run["metadata"]["output"].endswith(
        "Traceback (most recent call last):\nRuntimeError: scripted crash\n"
    )
    assert run["final_answer"] is None
    assert results["cart-discount"]["passed"] is False
    assert results["cart-discount"]["stop_reason"] == "error"


def test_editing_the_visible_test_is_a_violation(tmp_path: Path) -> None:
    tasks = custom_suite(tmp_path, cart_task("cheat"))
    runs, results = evaluate(tasks, tmp_path / "out")
    assert runs["cart-discount"]["stop_reason"] == "completed"
    assert runs["cart-discount"]["violations"] == ["edited protected file test_cart.py"]
    result = results["cart-discount"]
    assert result["passed"] is False
    assert result["violations"] == ["edited protected file test_cart.py"]
    # The code was never fixed, so the hidden grader fails too.
    assert result["state"] == {"passed": False, "reason": "check.passed: expected true, got false"}


def test_a_failing_hidden_test_fails_state(tmp_path: Path) -> None:
    tasks = custom_suite(tmp_path, cart_task("wrong") + slugify_task("wrong"))
    runs, results = evaluate(tasks, tmp_path / "out")
    for task_id in ("cart-discount", "slugify"):
        assert runs[task_id]["stop_reason"] == "completed"
        assert runs[task_id]["violations"] == []
        assert results[task_id]["passed"] is False
        assert results[task_id]["state"] == {
            "passed": False,
            "reason": "check.passed: expected true, got false",
        }
        check = runs[task_id]["final_state"]["check"]
        assert check["passed"] is False and check["exit_code"] == 1
    assert (
        "FAILED hidden_test.py::test_result_is_int"
        in (runs["cart-discount"]["final_state"]["check"]["output"])
    )


def test_malformed_usage_is_noted_not_raised(tmp_path: Path) -> None:
    tasks = custom_suite(tmp_path, cart_task("badusage"))
    runs, results = evaluate(tasks, tmp_path / "out")
    run = runs["cart-discount"]
    assert results["cart-discount"]["passed"] is True
    assert run["metadata"]["usage_error"] == (
        ".judgekit/usage.json: input_token: Extra inputs are not permitted"
    )
    assert (run["tool_calls"], run["usage"], run["cost_usd"]) == ([], None, None)


def test_a_hidden_file_inside_the_workdir_is_left_out_of_the_copy(tmp_path: Path) -> None:
    repo = tmp_path / "coding" / "cart-discount" / "repo"
    tasks = custom_suite(
        tmp_path,
        "  - id: cart-discount\n    input: fix it\n    workdir: cart-discount/repo\n"
        "    hidden: [cart-discount/repo/hidden_test.py]\n",
    )
    shutil.copy(EXAMPLE / "cart-discount" / "hidden_test.py", repo / "hidden_test.py")
    runs, results = evaluate(tasks, tmp_path / "out")
    assert runs["cart-discount"]["metadata"]["output"].startswith("hidden_test.py visible: no\n")
    assert results["cart-discount"]["passed"] is True  # and the check still found it


def test_a_hung_check_fails_the_check_not_the_evaluation(tmp_path: Path) -> None:
    tasks = custom_suite(
        tmp_path,
        cart_task() + "    check: '{python} -c \"import time; time.sleep(30)\"'\n",
    )
    runs, results = evaluate(tasks, tmp_path / "out", check_timeout_s=1)
    assert runs["cart-discount"]["final_state"]["check"] == {
        "passed": False,
        "exit_code": None,
        "output": "\n[check killed after 1 s]",
    }
    assert results["cart-discount"]["passed"] is False


def test_an_agent_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    tasks = custom_suite(tmp_path, cart_task())
    runs, results = evaluate(tasks, tmp_path / "out", command="./no-such-agent {prompt}")
    run = runs["cart-discount"]
    assert run["stop_reason"] == "error"
    assert run["metadata"]["stop_detail"].startswith("agent cannot start: [Errno 2]")
    assert results["cart-discount"]["passed"] is False


def test_an_agent_file_named_relative_to_the_current_folder_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The agent runs inside its workdir copy; scripted_agent.py means the one here.
    monkeypatch.chdir(EXAMPLE)
    tasks = custom_suite(tmp_path, cart_task())
    command = "{python} scripted_agent.py {workdir} {prompt}"
    _, results = evaluate(tasks, tmp_path / "out", command=command)
    assert results["cart-discount"]["passed"] is True


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("agent '{prompt}", 'agent command "agent \'{prompt}": No closing quotation'),
        (
            "python agent.py {workdir} {task}",
            "agent command 'python agent.py {workdir} {task}': unknown placeholder {task}; "
            "valid placeholders are {workdir}, {prompt}, {task_id}, {trial}, {python}",
        ),
        (
            "python agent.py {workdir",
            "agent command 'python agent.py {workdir': expected '}' before end of string "
            "(write {{ and }} for literal braces)",
        ),
        ("", "agent command is empty"),
        (
            "no-such-agent-program {prompt}",
            "agent command: program 'no-such-agent-program' is not on PATH",
        ),
    ],
)
def test_a_malformed_command_fails_before_any_trial(command: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        subprocess_trials(load_tasks(EXAMPLE / "tasks.yaml"), command)
    assert str(caught.value) == message


def test_a_missing_workdir_fails_before_any_trial(tmp_path: Path) -> None:
    tasks = custom_suite(tmp_path, "  - id: a\n    workdir: nowhere\n")
    with pytest.raises(ConfigError) as caught:
        subprocess_trials(tasks, AGENT)
    assert (
        str(caught.value) == f"task 'a': workdir {tmp_path / 'coding' / 'nowhere'} is not a folder"
    )


def test_a_prompt_stays_one_argument() -> None:
    template = CommandTemplate.parse("agent --task={task_id} {prompt} {workdir}", what="agent")
    prompt = """Fix "it"; don't `rm -rf ~` $(whoami)"""
    values = {"prompt": prompt, "workdir": "/tmp/a b", "task_id": "t 1", "trial": "1", "python": ""}
    assert template.render(values) == ["agent", "--task=t 1", prompt, "/tmp/a b"]


def test_protected_files_edited_deleted_or_added(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    for name in ("test_a.py", "test_b.py", "pkg/test_c.py", "main.py"):
        (tmp_path / name).write_text("x = 1\n")
    before = digest_protected(tmp_path, ["test_*.py", "**/test_*.py"])
    assert sorted(before) == ["pkg/test_c.py", "test_a.py", "test_b.py"]
    (tmp_path / "test_a.py").unlink()
    (tmp_path / "pkg" / "test_c.py").write_text("x = 2\n")
    (tmp_path / "test_new.py").write_text("x = 3\n")
    (tmp_path / "main.py").write_text("x = 4\n")
    assert protected_violations(tmp_path, before) == [
        "edited protected file pkg/test_c.py",
        "deleted protected file test_a.py",
    ]
