"""`judgekit init` as a new user meets it: a fresh folder outside this repository, the
installed command line in a process of its own, and the flow the project's README names."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from judgekit.scaffold import PROJECT_FILES
from judgekit.testing import FakeLLMServer
from tests.conftest import REPO

SKELETON = [
    ".github/workflows/judgekit.yml",
    ".gitignore",
    "README.md",
    "agent.py",
    "labels/.gitkeep",
    "rubrics/goal_completion.yaml",
    "tasks/support.yaml",
]


# How judgekit is started: this environment's, or (tests/packaging/) a wheel's console script.
THIS_ENVIRONMENT = (sys.executable, "-m", "judgekit")


def judgekit(
    args: list[str],
    cwd: Path,
    home: Path,
    stdin: str = "",
    command: Sequence[str] = THIS_ENVIRONMENT,
) -> tuple[int, str]:
    # No PYTHONPATH to this repository: the project sees only the installed judgekit.
    variables = {k: v for k, v in os.environ.items() if k not in ("JUDGEKIT_DB", "PYTHONPATH")}
    env = {**variables, "JUDGEKIT_HOME": str(home), "OPENAI_API_KEY": "sk-test-init"}
    done = subprocess.run(
        [*command, *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def assert_init_output(out: str) -> None:
    assert out.splitlines() == [
        *(f"wrote my-agent/{name}" for name in PROJECT_FILES),
        "next: cd my-agent, then",
        "  judgekit run --tasks tasks/support.yaml --agent agent:agent --trials 40 --out results",
        "  (then judge, label, calibrate and monitor: see README.md)",
    ]


def test_init_writes_the_skeleton(tmp_path: Path) -> None:
    code, out = judgekit(["init", "my-agent"], tmp_path, tmp_path / "home")
    assert code == 0
    assert_init_output(out)
    assert files_under(tmp_path / "my-agent") == SKELETON
    # The rubric is the packaged template, so `judgekit rubrics new` and init agree.
    assert (tmp_path / "my-agent/rubrics/goal_completion.yaml").read_text() == (
        REPO / "judgekit/scaffold/templates/rubrics/goal_completion.yaml"
    ).read_text()
    assert (tmp_path / "my-agent/labels/.gitkeep").read_text() == ""


def readme_block() -> list[str]:
    """The commands of the README's "Start a project" block, in order."""
    section = (REPO / "README.md").read_text().split("## Start a project\n", 1)[1]
    return section.split("```shell\n", 1)[1].split("```", 1)[0].splitlines()


def test_the_readme_block_works_in_a_new_folder(tmp_path: Path) -> None:
    assert REPO not in tmp_path.parents
    outputs, prompts = run_readme_block(tmp_path)
    check_readme_block(outputs, prompts, tmp_path / "my-agent")


def run_readme_block(
    folder: Path, command: Sequence[str] = THIS_ENVIRONMENT
) -> tuple[dict[str, str], list[str]]:
    """Each command of the block run in ``folder`` (the judge against a local fake server,
    the labels pressed on stdin): each command's output, and the prompts the judge got."""
    home, cwd = folder / "home", folder
    outputs: dict[str, str] = {}
    with FakeLLMServer() as server:
        for line in readme_block():
            if line.startswith("cd "):
                cwd = cwd / line.removeprefix("cd ")
                continue
            args = shlex.split(line.removeprefix("OPENAI_API_KEY=your-key "))[1:]
            if line.startswith("OPENAI_API_KEY="):
                args += ["--base-url", server.openai_base_url]
            stdin = "p\n" * 15 if args[0] == "label" else ""
            code, out = judgekit(args, cwd, home, stdin, command)
            assert code == (1 if args[0] == "promote" else 0), f"{line}\n{out}"
            outputs[args[0] if args[0] != "rubrics" else " ".join(args[:2])] = out
        return outputs, [request.text for request in server.requests]


def check_readme_block(outputs: dict[str, str], prompts: list[str], project: Path) -> None:
    assert_init_output(outputs["init"])
    # The stub's designed slips, one trial in three (seeded): 8 of these 15 failed.
    assert "suite: 7/15 runs passed, pass@1 0.47 (95% CI 0.25–0.70)" in outputs["run"]
    assert "failing tasks (3 of 3): reset_password, unknown_account, upgrade_plan" in outputs["run"]
    assert len((project / "results/runs.jsonl").read_text().splitlines()) == 15
    assert outputs["judge"].splitlines()[0] == (
        "goal_completion (version 522efa851831, openai/gpt-4o-mini): "
        "15 verdicts, 15 scored (pass 15), 0 unscored (0.0%)"
    )
    # {reference} came from the suite: the judge saw the task author's right outcome.
    assert any("There is no account for zed@example.com; nothing was reset." in p for p in prompts)
    assert (
        "15 labelled, 0 skipped this session; labels in labels/goal_completion.jsonl"
        in outputs["label"]
    )
    assert len((project / "labels/goal_completion.jsonl").read_text().splitlines()) == 15
    assert outputs["calibrate"].splitlines()[:2] == [
        "goal_completion (version 522efa851831, judge openai/gpt-4o-mini): 8 runs compared",
        "measured on dev: 8 of 15 labelled runs; 7 test labels held out for `judgekit promote` (7 fresh)",
    ]
    assert outputs["promote"].startswith(
        "goal_completion (version 522efa851831) not promoted: 3 of 3 criteria not met"
    )
    assert "rubric:goal_completion   1.000  0.80–1.00  15" in outputs["monitor"]
    assert outputs["monitor"].splitlines()[-1] == "monitor: no alerts (0 gating metrics tested)"
    assert outputs["rubrics new"] == (
        "wrote rubrics/tone.yaml (rubric tone, answer_quality template, version 6142651d1c6b): "
        "edit its prompt and examples, then judgekit judge RUNS --rubric tone\n"
    )
    listed = [line.split()[:5] for line in outputs["rubrics"].splitlines()[4:6]]
    assert listed == [
        ["goal_completion", "522efa851831", "binary", "openai/gpt-4o-mini", "calibrating"],
        ["tone", "6142651d1c6b", "likert", "openai/gpt-4o-mini", "draft"],
    ]


def test_init_never_overwrites_and_writes_nothing_when_it_refuses(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    (folder / "rubrics").mkdir(parents=True)
    (folder / "agent.py").write_text("MINE = 1\n")
    (folder / "rubrics/goal_completion.yaml").write_text("id: mine\n")
    code, out = judgekit(["init", "mine"], tmp_path, tmp_path / "home")
    assert code == 2
    assert out == (
        "judgekit: error: mine already has agent.py, rubrics/goal_completion.yaml; judgekit "
        "init never overwrites a file: move them away, or init an empty folder "
        "(judgekit init NEW_FOLDER)\n"
    )
    assert files_under(folder) == ["agent.py", "rubrics/goal_completion.yaml"]
    assert (folder / "agent.py").read_text() == "MINE = 1\n"
    assert not (folder / "tasks").exists() and not (folder / "labels").exists()


def test_init_in_the_current_folder_keeps_what_else_is_there(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep me\n")
    code, out = judgekit(["init"], tmp_path, tmp_path / "home")
    assert code == 0, out
    assert out.splitlines()[-3] == "next:"
    assert files_under(tmp_path) == sorted([*SKELETON, "notes.txt"])
    assert (tmp_path / "notes.txt").read_text() == "keep me\n"


def test_init_on_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("")
    code, out = judgekit(["init", "taken"], tmp_path, tmp_path / "home")
    assert (code, out) == (
        2,
        "judgekit: error: Invalid value for '[DIR]': Directory 'taken' is a file. "
        "(see judgekit init --help)\n",
    )


def test_rubrics_outside_a_project_says_how_to_start(tmp_path: Path) -> None:
    code, out = judgekit(["rubrics"], tmp_path, tmp_path / "home")
    assert code == 2
    assert out == (
        "judgekit: error: rubrics: no such folder; start a project with `judgekit init`, or "
        "add a rubric with `judgekit rubrics new ID --template goal_completion`\n"
    )
