""" "Did you mean": one rule (click's: difflib's closest three at 0.6) and one wording for a
mistyped task field, model name and --agent; commands and options are click's own."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit._util.close_names import close_names, did_you_mean, suggesting
from judgekit._util.references import UnresolvedReference, resolve_reference
from judgekit.cli import main
from tests.conftest import REPO


def test_the_rule_is_clicks() -> None:
    names = ["grade", "gate", "judge", "label", "labels", "report"]
    assert close_names("grdae", names) == ["grade", "gate"]
    assert close_names("labl", names) == ["label", "labels"]
    assert close_names("zzz", names) == []
    assert did_you_mean("jduge", names) == "did you mean 'judge'?"
    assert suggesting(["a, b", "c"]) == "did you mean one of 'a, b', 'c'?"
    assert suggesting([]) == ""


def test_a_mistyped_command_is_suggested_by_click_among_every_command() -> None:
    result = CliRunner().invoke(main, ["grdae"])
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: No such command 'grdae'. (Did you mean one of: 'gate', 'grade'?) "
        "(see judgekit --help)\n"
    )


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder with agent.py beside the suite, as `judgekit init` leaves one (its modules
    forgotten after the test, so no other test imports this agent)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "agent.py").write_text("def agent(task, world):\n    return 'ok'\n", "utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("", "utf-8")
    (tmp_path / "src" / "bot.py").write_text("def answer(task, world):\n    return ''\n", "utf-8")
    yield tmp_path
    for name in ("agent", "src", "src.bot"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("agent.agent", "agent must be 'module:name', got 'agent.agent'; did you mean 'agent:agent'?"),
        ("agent.py:agent", "agent cannot import module 'agent.py': No module named 'agent.py'; "
         "'agent' is not a package; did you mean 'agent:agent'?"),
        ("src/bot.py:answer", "agent cannot import module 'src/bot.py': No module named "
         "'src/bot'; did you mean 'src.bot:answer'?"),
        ("agent:agnet", "agent: module 'agent' has no 'agnet'; did you mean 'agent:agent'?"),
        # A guess that does not resolve is not offered.
        ("agent.nobody", "agent must be 'module:name', got 'agent.nobody'"),
        ("agent", "agent must be 'module:name', got 'agent'"),
        ("src.bot", "agent must be 'module:name', got 'src.bot'"),  # src.bot is a module
    ],
)  # fmt: skip
def test_an_agent_reference_of_another_form_suggests_the_one_meant(
    project: Path, reference: str, message: str
) -> None:
    with pytest.raises(UnresolvedReference) as caught:
        resolve_reference(reference, what="agent")
    assert str(caught.value) == message


def test_run_says_which_agent_was_meant(project: Path) -> None:
    shutil.copy(REPO / "tasks" / "shop.yaml", project / "shop.yaml")
    args = ["run", "--tasks", "shop.yaml", "--agent", "examples.shop.agent", "--no-store"]
    result = CliRunner().invoke(main, [*args, "--trials", "1", "--out", "out"])
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: --agent must be 'module:name', got 'examples.shop.agent'; "
        "did you mean 'examples.shop:agent'?\n"
    )


def test_a_mistyped_task_field_names_the_near_one(tmp_path: Path) -> None:
    suite = tmp_path / "s.yaml"
    suite.write_text("suite: s\ntasks:\n  - id: a\n    forbid_tool: [x]\n", encoding="utf-8")
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"run_id": "r", "task_id": "a", "tool_calls": []}) + "\n", "utf-8")
    result = CliRunner().invoke(main, ["grade", str(runs), "--tasks", str(suite), "--no-store"])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"judgekit: error: {suite}:4: tasks[0].forbid_tool: unknown field (did you mean one of "
        "'forbid_tools', 'ignore_tools'?); valid fields are id, input, expect_tools, "
    )
    suite.write_text("suite: s\ndescripton: x\ntasks:\n  - id: a\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["grade", str(runs), "--tasks", str(suite), "--no-store"])
    assert result.stderr == (
        f"judgekit: error: {suite}:2: descripton: unknown field (did you mean 'description'?); "
        "valid fields are suite, description, defaults, initial_state, tools, tasks\n"
    )


def test_a_mistyped_model_in_a_dry_run_names_the_priced_ones_near_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["judge", str(REPO / "examples" / "runs" / "shop.jsonl"), "--tasks", str(REPO / "tasks")]
    args += ["--rubric", str(REPO / "rubrics" / "goal_completion.yaml"), "--dry-run"]
    result = CliRunner().invoke(main, [*args, "--model", "openai/gpt-4o-mnii"])
    # A dry run sends nothing and did what it was asked: it exits 0, the cost said unknown.
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (
        "projected cost: unknown, the price table lacks openai/gpt-4o-mnii (did you mean one of "
        "'openai/gpt-4o-mini', 'openai/gpt-5.4-mini'?); if the name is right, add its price "
        "with --prices FILE or JUDGEKIT_HOME/prices.yaml"
    )
    result = CliRunner().invoke(main, [*args, "--model", "local/llama3"])
    assert result.stdout.splitlines()[-1] == (
        "projected cost: unknown, the price table lacks local/llama3; if the name is right, add "
        "its price with --prices FILE or JUDGEKIT_HOME/prices.yaml"
    )
