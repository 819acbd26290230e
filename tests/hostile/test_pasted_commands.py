"""Every command judgekit shows a user — in the README and the docs pages, in a project
`judgekit init` makes and in what `judgekit demo` prints — runs when pasted into a shell, as
written.

The key placeholder was `OPENAI_API_KEY=…`: pasted, the `…` went into the HTTP header and
the command ended in a 60-line UnicodeEncodeError traceback (the README's tests took the
placeholder out before running the commands, so they never saw it), and the demo printed
`--model local/<model>`, which a shell reads as two redirections. The other commands are run
as written by tests/test_docs.py and tests/scaffold/test_new_project.py; the ones that set
a key are run here through bash, the key placeholder as written, against the fake server
(`OPENAI_BASE_URL`, which the SDK reads, stands in for api.openai.com).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.demo.commands import next_steps
from judgekit.testing import FakeLLMServer
from tests.conftest import REPO

KEY_PLACEHOLDER = "OPENAI_API_KEY=your-key "
PROJECT_README = REPO / "judgekit" / "scaffold" / "templates" / "project" / "README.md"
WALKTHROUGH = REPO / "docs" / "walkthrough.md"


def block_commands(text: str) -> list[str]:
    """The command lines of a Markdown text's bash, shell and console blocks (console: the
    lines after `$ `), continuations joined."""
    found = []
    for kind, body in re.findall(r"```(bash|shell|console)\n(.*?)```", text, re.S):
        lines = iter(body.splitlines())
        for line in lines:
            if kind == "console" and not line.startswith("$ "):
                continue
            command = line.removeprefix("$ ")
            while command.endswith("\\"):
                command = command[:-1].rstrip() + " " + next(lines).strip()
            if command and not command.startswith("#"):
                found.append(command)
    return found


def keyed(markdown: Path) -> list[str]:
    """The commands of a Markdown file that set a key."""
    return [c for c in block_commands(markdown.read_text(encoding="utf-8")) if "API_KEY=" in c]


def demo_commands(out: Path, cwd: Path | None = None) -> list[str]:
    return [command for _, commands in next_steps(out, cwd) for command in commands]


def printed_commands(tmp_path: Path) -> dict[str, list[str]]:
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    shown = {
        page.relative_to(REPO).as_posix(): block_commands(page.read_text(encoding="utf-8"))
        for page in pages
    }
    return {
        **{where: commands for where, commands in shown.items() if commands},
        "the project's README.md": block_commands(PROJECT_README.read_text(encoding="utf-8")),
        "judgekit demo": demo_commands(tmp_path / "judgekit-demo", tmp_path),
    }


def test_every_printed_command_is_plain_ascii_with_no_angle_brackets(tmp_path: Path) -> None:
    """A shell reads `…` as part of a word and `<model>` as redirections: neither is a
    placeholder a pasted command survives."""
    for where, commands in printed_commands(tmp_path).items():
        assert commands, where
        for command in commands:
            assert command.isascii(), f"{where}: {command}"
            assert not re.search(r"<\w", command), f"{where}: {command}"


def test_the_commands_that_set_a_key_are_the_ones_this_file_runs(tmp_path: Path) -> None:
    # The docs pages' keyed commands also run pasted, through bash, in tests/test_docs.py.
    keyed = {
        where: [c for c in commands if "API_KEY=" in c]
        for where, commands in printed_commands(tmp_path).items()
        if not where.startswith("docs/") or where == "docs/walkthrough.md"
    }
    assert keyed == {
        "README.md": [
            f"{KEY_PLACEHOLDER}judgekit judge results/runs.jsonl --rubric goal_completion "
            "--tasks tasks",
        ],
        "docs/walkthrough.md": [
            f"{KEY_PLACEHOLDER}judgekit judge out/runs.jsonl --rubric goal_completion --tasks "
            "tasks --model openai/gpt-4o-mini",
            f"{KEY_PLACEHOLDER}judgekit monitor --recheck goal_completion  # exits 2",
        ],
        "the project's README.md": [
            f"{KEY_PLACEHOLDER}judgekit judge results/runs.jsonl --rubric goal_completion "
            "--tasks tasks",
        ],
        "judgekit demo": [
            f"{KEY_PLACEHOLDER}judgekit judge judgekit-demo/shop/runs.jsonl --rubric "
            "judgekit-demo/project/rubrics/goal_completion.yaml --tasks "
            "judgekit-demo/project/tasks --model openai/gpt-4o-mini",
            f"{KEY_PLACEHOLDER}judgekit judge judgekit-demo/my-candidate/runs.jsonl --rubric "
            "judgekit-demo/project/rubrics/goal_completion.yaml --tasks "
            "judgekit-demo/project/tasks --model openai/gpt-4o-mini --out "
            "judgekit-demo/my-candidate",
        ],
    }


@pytest.fixture
def shell(tmp_path: Path) -> Iterator[tuple[FakeLLMServer, dict[str, str]]]:
    """The fake server, and the environment of a shell whose `judgekit` is this checkout's,
    whose OpenAI is the fake server and which holds no key of its own."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "judgekit"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m judgekit "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith("_API_KEY") and key not in ("JUDGEKIT_DB", "OPENAI_BASE_URL")
    }
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(REPO)
    with FakeLLMServer() as server:
        env["OPENAI_BASE_URL"] = server.openai_base_url
        yield server, env


def paste(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def judged(done: subprocess.CompletedProcess[str], verdicts: int) -> None:
    """The judge ran, judged every run, and printed no traceback."""
    assert done.returncode == 0, done.stderr
    assert f"{verdicts} verdicts, {verdicts} scored (pass {verdicts})" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_the_project_readmes_judge_runs_when_pasted(
    tmp_path: Path, shell: tuple[FakeLLMServer, dict[str, str]]
) -> None:
    server, env = shell
    assert CliRunner().invoke(main, ["init", str(tmp_path / "my-agent")]).exit_code == 0
    project = tmp_path / "my-agent"
    run = "judgekit run --tasks tasks/support.yaml --agent agent:agent --trials 5 --out results"
    assert paste(run, project, env).returncode == 0
    readme_line = keyed(REPO / "README.md")[0]
    project_line = keyed(project / "README.md")[0]
    assert readme_line == project_line and readme_line.startswith(KEY_PLACEHOLDER)
    judged(paste(project_line, project, env), 15)
    assert {request.headers["authorization"] for request in server.requests} == {"Bearer your-key"}
    assert len((project / "verdicts.jsonl").read_text().splitlines()) == 15


def test_the_walk_throughs_judge_and_recheck_run_when_pasted(
    tmp_path: Path, shell: tuple[FakeLLMServer, dict[str, str]]
) -> None:
    server, env = shell
    for folder in ("tasks", "rubrics", "examples"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__*"))
    (tmp_path / "out").mkdir()
    shutil.copy(REPO / "examples/runs/shop.jsonl", tmp_path / "out/runs.jsonl")
    judge_line, recheck_line = keyed(WALKTHROUGH)
    judged(paste(judge_line, tmp_path, env), 18)
    assert server.calls == 7  # one per distinct prompt
    recheck = paste(recheck_line, tmp_path, env)
    # Nothing is promoted in the walk-through: the one line it shows, not a traceback.
    assert recheck.returncode == 2
    assert recheck.stderr == (
        "judgekit: error: rubrics/goal_completion.promotion.json: no promotion record: only "
        "a promoted rubric can be rechecked\n"
    )


def test_the_demos_commands_run_when_pasted_and_write_only_into_its_folder(
    tmp_path: Path, shell: tuple[FakeLLMServer, dict[str, str]]
) -> None:
    """The commands the demo prints, read off its output and pasted from the folder it ran
    in: each runs, and what they write lands in the demo's folder — never in the package's
    own copy of the project, which promoting the package's rubric would have written into."""
    server, env = shell
    (work := tmp_path / "work").mkdir()
    package = REPO / "judgekit" / "demo" / "project"
    before = {path: path.read_bytes() for path in package.rglob("*") if path.is_file()}
    demo = paste("judgekit demo --out judgekit-demo", work, env)
    assert demo.returncode == 0, demo.stderr
    printed = demo.stdout.split("The same with a real model", 1)[1].splitlines()
    commands = [line.strip() for line in printed if line.startswith("  ")]
    assert commands == demo_commands(work / "judgekit-demo", work)
    # Labelling is a terminal session: the demo's simulated labeller's labels stand in.
    shutil.copytree(work / "judgekit-demo/labels", work / "judgekit-demo/my-labels")
    exits = {}
    for command in commands:
        if " label " in command or "--base-url" in command:
            continue  # a terminal session; a server on another port
        done = paste(command, work, env)
        assert "Traceback" not in done.stdout + done.stderr, command
        exits[command.split("judgekit ", 1)[1].split()[0]] = done.returncode
    assert exits == {
        "judge": 0,
        "calibrate": 0,
        "promote": 1,  # the fake server's judge does not agree with the labeller
        "monitor": 1,  # the demo's nights, in the same store, alert
        "report": 0,
        "run": 0,
        "gate": 0,  # the same seeded stub agent again
    }
    assert {r.headers["authorization"] for r in server.requests} == {"Bearer your-key"}
    assert (work / "judgekit-demo/my-candidate/verdicts.jsonl").is_file()
    after = {path: path.read_bytes() for path in package.rglob("*") if path.is_file()}
    assert after == before


def test_the_old_placeholder_pasted_is_one_line_before_any_request(
    tmp_path: Path, shell: tuple[FakeLLMServer, dict[str, str]]
) -> None:
    server, env = shell
    (tmp_path / "out").mkdir()
    shutil.copy(REPO / "examples/runs/shop.jsonl", tmp_path / "out/runs.jsonl")
    done = paste(
        "OPENAI_API_KEY=… judgekit judge out/runs.jsonl --rubric "
        f"{REPO / 'rubrics/goal_completion.yaml'} --tasks {REPO / 'tasks'}",
        tmp_path,
        env,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "judgekit: error: OPENAI_API_KEY holds a character that cannot be sent in an HTTP "
        "header (U+2026, HORIZONTAL ELLIPSIS, character 1 of 1): paste the key itself\n"
    )
    assert done.stdout == "" and server.calls == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".judgekit") == ["bin", "out"]
    assert list((tmp_path / "out").iterdir()) == [tmp_path / "out/runs.jsonl"]
    home = tmp_path / ".judgekit"
    assert not home.exists() or list(home.iterdir()) == []  # no cache, no store
