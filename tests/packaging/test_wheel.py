"""judgekit as a user gets it: the wheel and the sdist built as PyPI would take them, the
wheel installed into a fresh virtual environment with no source tree anywhere near, and
the commands a newcomer runs first — `--help`, `demo`, `init` and the README's
first-project block — run from an empty folder by the installed console script.

One module-scoped build, from a copy of the checkout's files, and install (the
dependencies come through pip's cache), so the module costs about a minute. Without a network to the package index it skips, saying so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import judgekit
from tests.conftest import REPO
from tests.scaffold.test_new_project import (
    assert_init_output,
    check_readme_block,
    run_readme_block,
)
from tests.scaffold.test_new_project import (
    judgekit as run_judgekit,
)
from tests.test_docs import check_page, run_page

VERSION = judgekit.__version__
WHEEL = f"judgekit_agents-{VERSION}-py3-none-any.whl"
SDIST = f"judgekit_agents-{VERSION}.tar.gz"
# What pip says when it cannot reach the index: then the test skips, it does not fail.
OFFLINE = (
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "No matching distribution found for setuptools",
)
DEMO_PROMOTED = (
    "promoted goal_completion (version 419395345c13, judge local/careful-judge): kappa 0.864 "
    "(95% CI 0.736–0.993); wrote judgekit-demo/rubrics/goal_completion.promotion.json"
)


@dataclass(frozen=True)
class Installed:
    dist: Path  # the wheel and the sdist
    venv: Path
    site_packages: Path

    @property
    def judgekit(self) -> Path:
        return self.venv / "bin" / "judgekit"

    def env(self, home: Path) -> dict[str, str]:
        """No source tree, store, key or other environment: only the venv on the PATH."""
        dropped = ("PYTHONPATH", "JUDGEKIT_DB", "VIRTUAL_ENV", "PYTHONHOME")
        variables = {
            k: v
            for k, v in os.environ.items()
            if k not in dropped and not k.startswith(("OPENAI_", "ANTHROPIC_"))
        }
        path = f"{self.venv / 'bin'}{os.pathsep}{variables.get('PATH', '')}"
        return {**variables, "PATH": path, "JUDGEKIT_HOME": str(home)}

    def run(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.judgekit), *args],
            cwd=cwd,
            env=self.env(cwd / ".judgekit"),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )


def _run(args: list[str | Path], what: str) -> str:
    """A set-up step; skip when it failed for want of the network, fail otherwise."""
    done = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=600, check=False
    )
    output = done.stdout + done.stderr
    if done.returncode != 0:
        if any(sign in output for sign in OFFLINE):
            pytest.skip(f"{what} needs the package index, which cannot be reached: {output[-300:]}")
        pytest.fail(f"{what} failed ({done.returncode}):\n{output[-3000:]}")
    return output


def source_tree(folder: Path) -> Path:
    """A copy of the checkout's files, as git sees them (committed or not, never ignored),
    links kept as links. Built in place, the checkout's own ``*.egg-info`` (which ``pip
    install -e`` leaves) would list files into the sdist that package-data may have lost."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source, target = REPO / name, folder / name
        if not source.is_symlink() and not source.exists():
            continue  # deleted, not yet committed
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    return folder


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("wheel")
    dist = work / "dist"
    # The sdist, then the wheel built from it: what an index serves, both ways.
    source = source_tree(work / "source")
    _run([sys.executable, "-m", "build", "--outdir", dist, source], "building the wheel")
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", venv], "creating a virtual environment")
    python = venv / "bin" / "python"
    _run([python, "-m", "pip", "install", "--quiet", dist / WHEEL], "installing the wheel")
    purelib = _run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], "purelib"
    )
    return Installed(dist, venv, Path(purelib.strip()))


def test_the_wheel_and_the_sdist_pass_twine_check(installed: Installed) -> None:
    files = [installed.dist / WHEEL, installed.dist / SDIST]
    assert sorted(p.name for p in installed.dist.iterdir()) == sorted(p.name for p in files)
    done = subprocess.run(
        [sys.executable, "-m", "twine", "--no-color", "check", "--strict", *map(str, files)],
        env={**os.environ, "COLUMNS": "1000"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [f"Checking {p}: PASSED" for p in files]


def test_the_wheel_ships_the_demo_s_project_and_the_templates(installed: Installed) -> None:
    with zipfile.ZipFile(installed.dist / WHEEL) as wheel:
        names = set(wheel.namelist())
    project = {n for n in names if n.startswith("judgekit/demo/project/")}
    assert project == {
        "judgekit/demo/project/examples/__init__.py",
        "judgekit/demo/project/examples/shop.py",
        "judgekit/demo/project/examples/travel.py",
        "judgekit/demo/project/labels/goal_completion.jsonl",
        "judgekit/demo/project/rubrics/goal_completion.yaml",
        "judgekit/demo/project/tasks/shop.yaml",
        "judgekit/demo/project/tasks/travel.yaml",
    }
    templates = sorted(REPO.glob("judgekit/scaffold/templates/*/*"))
    assert {str(p.relative_to(REPO)) for p in templates} <= names
    assert not any(n.startswith(("tests/", "examples/", "tasks/")) for n in names)
    # Real files, the same bytes as the repository's (whose top-level copies are links).
    for name in project:
        with zipfile.ZipFile(installed.dist / WHEEL) as wheel:
            assert wheel.read(name) == (REPO / name).read_bytes(), name


def test_the_sdist_holds_the_package_and_its_data_not_the_tests(installed: Installed) -> None:
    with tarfile.open(installed.dist / SDIST) as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    top = {name.split("/")[0] for name in members}
    assert top == {
        "MANIFEST.in",
        "PKG-INFO",
        "README.md",
        "judgekit",
        "judgekit_agents.egg-info",
        "pyproject.toml",
        "setup.cfg",
    }
    assert "judgekit/demo/project/tasks/shop.yaml" in members
    assert "judgekit/scaffold/templates/project/workflow.yml" in members


def test_the_installed_judgekit_is_the_wheel_s_alone(installed: Installed, tmp_path: Path) -> None:
    done = subprocess.run(
        [installed.venv / "bin" / "python", "-c", "import judgekit; print(judgekit.__file__)"],
        cwd=tmp_path,
        env=installed.env(tmp_path / ".judgekit"),
        capture_output=True,
        text=True,
        check=True,
    )
    location = Path(done.stdout.strip())
    assert location == installed.site_packages / "judgekit" / "__init__.py"
    assert REPO not in location.resolve().parents
    version = installed.run("--version", cwd=tmp_path)
    assert (version.returncode, version.stdout) == (0, f"judgekit, version {VERSION}\n")
    helped = installed.run("--help", cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("Usage: judgekit [OPTIONS] COMMAND [ARGS]...")
    assert "  demo " in helped.stdout and "  init " in helped.stdout


def test_the_demo_runs_from_the_wheel(installed: Installed, tmp_path: Path) -> None:
    done = installed.run("demo", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    lines = done.stdout.splitlines()
    assert DEMO_PROMOTED in lines
    assert (tmp_path / "judgekit-demo" / "report.html").is_file()
    # The commands it suggests name its copy of the package's project, never the package
    # itself (promoting there would write into site-packages), and run from the wheel alone.
    package = installed.site_packages / "judgekit" / "demo" / "project"
    copy = tmp_path / "judgekit-demo" / "project"
    assert "--tasks judgekit-demo/project/tasks " in done.stdout
    assert str(installed.site_packages) not in done.stdout.split("The same with a real model")[1]
    for name in ("rubrics/goal_completion.yaml", "tasks/shop.yaml", "examples/shop.py"):
        assert (copy / name).read_bytes() == (package / name).read_bytes(), name
    run_line = next(line.strip() for line in lines if line.strip().startswith("PYTHONPATH="))
    ran = subprocess.run(
        ["bash", "-c", run_line],
        cwd=tmp_path,
        env=installed.env(tmp_path / ".judgekit"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr
    candidate = tmp_path / "judgekit-demo" / "my-candidate" / "runs.jsonl"
    shop = tmp_path / "judgekit-demo" / "shop" / "runs.jsonl"
    assert len(candidate.read_text().splitlines()) == len(shop.read_text().splitlines())


def test_the_view_serves_the_demo_from_the_wheel(installed: Installed, tmp_path: Path) -> None:
    """Its pages, stylesheet and script are in the wheel: the printed view command serves them."""
    assert installed.run("demo", cwd=tmp_path).returncode == 0
    url_file = tmp_path / "view.url"
    view = subprocess.Popen(
        [
            str(installed.judgekit),
            "view",
            "judgekit-demo",
            "--no-browser",
            "--url-file",
            str(url_file),
        ],
        cwd=tmp_path,
        env=installed.env(tmp_path / ".judgekit"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not url_file.exists() and time.monotonic() < deadline and view.poll() is None:
            time.sleep(0.05)
        url = url_file.read_text().strip()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(url) as page:  # the token becomes a cookie, then the run list
            body = page.read().decode()
        assert '<p class="count" id="count">360 runs, page 1 of 8</p>' in body
        base = url.split("/?")[0]
        for asset in ("/static/view.css", "/static/view.js"):
            with opener.open(base + asset) as response:
                assert response.status == 200 and response.read()
        with opener.open(base + "/rubric?id=goal_completion_sloppy") as page:
            assert "kappa 0.426 [0.210, 0.641]" in page.read().decode()
    finally:
        view.terminate()
        view.wait(timeout=10)


def test_init_and_the_readme_s_first_project_from_the_wheel(
    installed: Installed, tmp_path: Path
) -> None:
    code, out = run_judgekit(
        ["init", "my-agent"], tmp_path, tmp_path / "home", command=[str(installed.judgekit)]
    )
    assert code == 0, out
    assert_init_output(out)
    workflow = (tmp_path / "my-agent/.github/workflows/judgekit.yml").read_text()
    assert f'run: pip install "judgekit-agents=={VERSION}"' in workflow
    readme = tmp_path / "readme"
    readme.mkdir()
    outputs, prompts = run_readme_block(readme, [str(installed.judgekit)])
    check_readme_block(outputs, prompts, readme / "my-agent")


def test_the_tutorial_runs_from_the_wheel_as_printed(installed: Installed, tmp_path: Path) -> None:
    """docs/tutorial.md, every command as the page prints it, with the wheel's judgekit and
    no source tree: init to promoted, gated and monitored."""
    folder, work = tmp_path / "page", tmp_path / "work"
    folder.mkdir()
    work.mkdir()
    ran = run_page(REPO / "docs" / "tutorial.md", folder, work, venv=installed.venv)
    check_page(ran)
    promoted = [output for command, _, output in ran if command.line.startswith("judgekit promote")]
    assert len(promoted) == 1 and " promoted on 60 fresh test labels" in promoted[0]
