"""CI installs judgekit pinned: the workflow `judgekit init` writes and every example
workflow install this distribution, by pyproject.toml's name, at exactly the version that
wrote them — never `pip install -e .` (in a user's repository that installs their own
project) and never a name another project holds — and say how to install it from a wheel
or from its repository where it is not on the index."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import judgekit
from judgekit.scaffold import init_project
from tests.cli.test_help import assert_parses
from tests.conftest import REPO
from tests.test_github_actions_example import WORKFLOWS, comment_commands, load, run_commands

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
NAME = PYPROJECT["project"]["name"]
VERSION = judgekit.__version__
WHEEL = f"judgekit_agents-{VERSION}-py3-none-any.whl"


def test_the_version_is_written_in_one_place() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "judgekit._util.version.__version__"
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)
    assert canonicalize_name(NAME) == "judgekit-agents"


@pytest.fixture(scope="module")
def init_workflow(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("init") / "my-agent"
    init_project(folder)
    return folder / ".github/workflows/judgekit.yml"


def all_workflows(init_workflow: Path) -> list[Path]:
    return [*WORKFLOWS, init_workflow]


def install_steps(path: Path) -> list[list[str]]:
    """The words of every `pip install` a `run:` script of the workflow holds."""
    found = []
    for job in load(path)["jobs"].values():
        for step in job["steps"]:
            for line in str(step.get("run", "")).splitlines():
                if line.strip().startswith("pip "):
                    found.append(shlex.split(line, comments=True))
    return found


def assert_pinned(words: list[str], where: str) -> None:
    assert len(words) == 3, f"{where}: {words} installs one requirement, no option"
    requirement = Requirement(words[2])
    assert requirement.name == NAME, f"{where}: {words[2]} is not {NAME}"
    assert str(requirement.specifier) == f"=={VERSION}", f"{where}: {words[2]}"
    assert requirement.url is None and requirement.marker is None, where
    assert requirement.extras <= {"postgres"}, where


def test_every_workflow_installs_this_version_of_this_distribution(init_workflow: Path) -> None:
    assert init_workflow.read_text(encoding="utf-8").count(f"{NAME}=={VERSION}") == 1
    for path in all_workflows(init_workflow):
        steps = install_steps(path)
        assert steps, f"{path.name} installs nothing"
        for words in steps:
            assert_pinned(words, path.name)
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"pip install\s+(-e|--editable)\b", text), path.name
        assert "@JUDGEKIT_VERSION@" not in text, path.name


def test_the_store_variants_install_the_postgres_driver() -> None:
    for path in WORKFLOWS:
        extras = {frozenset(Requirement(w[2]).extras) for w in install_steps(path)}
        store = "JUDGEKIT_DB" in path.read_text(encoding="utf-8")
        assert extras == {frozenset({"postgres"} if store else set())}, path.name


def test_every_workflow_says_how_to_install_from_a_wheel_or_the_repository(
    init_workflow: Path,
) -> None:
    for path in all_workflows(init_workflow):
        comments = [
            line.strip().removeprefix("#").strip()
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip().startswith("#   pip install ")
        ]
        assert len(comments) == 2, path.name
        wheel, repository = (shlex.split(line)[2] for line in comments)
        assert wheel.startswith(f"./wheels/{WHEEL}"), path.name
        from_git = Requirement(repository)
        assert from_git.name == NAME and from_git.url == "git+URL@REF", path.name


def test_no_baseline_is_made_in_the_readme_s_results_folder(init_workflow: Path) -> None:
    """`judgekit run --out results` is the README's first run: a baseline made by hand
    beside it must not land in the same folder."""
    text = init_workflow.read_text(encoding="utf-8")
    by_hand = re.sub(r"\s*\\\n#\s*", " ", text)
    (line,) = [line for line in by_hand.splitlines() if "--save-baseline" in line]
    assert '--out "$(mktemp -d)"' in line
    for path in WORKFLOWS:
        for command in run_commands(path):
            if "--save-baseline" in command.args:
                out = command.option("--out")
                assert out is not None and not out.startswith("results"), command.where


def test_the_install_page_names_this_version() -> None:
    """docs/install.md shows the pinned lines and the wheel's file name: at this version."""
    text = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    named = re.findall(r"judgekit-agents(?:\[postgres\])?==([^\s\"`]+)", text)
    named += re.findall(r"judgekit_agents-([^-]+)-py3-none-any\.whl", text)
    named += re.findall(r"judgekit, version (\S+)", text)
    assert len(named) == 6 and set(named) == {VERSION}, named


def test_the_init_workflow_s_commands_parse(init_workflow: Path) -> None:
    # The header's first line, "judgekit in CI: ...", is prose, not a command.
    by_hand = [c for c in comment_commands(init_workflow) if "--save-baseline" in c.written]
    commands = run_commands(init_workflow) + by_hand
    assert [c.args[0] for c in commands] == ["run", "gate", "report", "run"]
    for command in commands:
        assert_parses(command.expanded)
