"""Where the demo finds its project: inside the package, so an installed wheel runs it; the
repository's top-level copies lead there."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import judgekit.demo.common as demo_common
from judgekit.cli import main
from judgekit.demo.common import project_root
from judgekit.errors import ConfigError
from tests.conftest import REPO


def test_without_its_project_files_the_demo_says_so_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site" / "judgekit" / "demo"
    monkeypatch.setattr(demo_common, "__file__", str(site / "common.py"))
    project = site / "project"
    missing = [
        project / "rubrics/goal_completion.yaml",
        project / "examples/__init__.py",
        project / "tasks/shop.yaml",
        project / "examples/shop.py",
        project / "tasks/travel.yaml",
        project / "examples/travel.py",
    ]
    message = (
        f"the demo's project files are missing ({', '.join(map(str, missing))}): this "
        "judgekit was installed without its package data; reinstall it (pip install "
        "--force-reinstall judgekit-agents)"
    )
    with pytest.raises(ConfigError) as raised:
        demo_common.project_root()
    assert str(raised.value) == message
    result = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.output == f"judgekit: error: {message}\n"
    assert not (tmp_path / "out").exists()


def test_the_repository_s_demo_files_are_links_to_the_package_s() -> None:
    """One copy of each file: the top-level ones the docs and tests use lead to the
    package's, which the wheel ships."""
    root = project_root()
    shipped = sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file())
    shipped = [p for p in shipped if "__pycache__" not in p.parts]
    assert [str(p) for p in shipped] == [
        "examples/__init__.py",
        "examples/shop.py",
        "examples/travel.py",
        "labels/goal_completion.jsonl",
        "rubrics/goal_completion.yaml",
        "tasks/shop.yaml",
        "tasks/travel.yaml",
    ]
    for relative in shipped:
        link = REPO / relative
        assert link.is_symlink(), link
        assert link.resolve() == (root / relative).resolve()
