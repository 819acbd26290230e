"""The rubric templates: each a valid rubric of its kind, `judgekit rubrics new` writing it
under a new id, and the package data that ships them in a wheel."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.scaffold import RUBRIC_TEMPLATES, rubric_template
from tests.conftest import REPO

TEMPLATES = REPO / "judgekit" / "scaffold" / "templates"

KINDS = {
    "goal_completion": ("binary", "final_answer", "522efa851831"),
    "answer_quality": ("likert", "transcript", "6142651d1c6b"),
    "preference": ("pairwise", "final_answer", "50252a0dd176"),
    "tool_use": ("binary", "tool_calls", "230ede5d827d"),
}


def invoke(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(main, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


@pytest.mark.parametrize("name", list(RUBRIC_TEMPLATES))
def test_rubrics_new_writes_a_rubric_that_loads(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = invoke(["rubrics", "new", f"my_{name}", "--template", name])
    kind, applies_to, version = KINDS[name]
    assert (code, out) == (
        0,
        f"wrote rubrics/my_{name}.yaml (rubric my_{name}, {name} template, version {version}): "
        f"edit its prompt and examples, then judgekit judge RUNS --rubric my_{name}\n",
    )
    rubric = load_rubric(f"my_{name}")
    assert (rubric.id, rubric.kind, rubric.applies_to) == (f"my_{name}", kind, applies_to)
    # The id is not part of the version: the new rubric judges exactly as its template.
    assert rubric_version(rubric) == version
    text = (tmp_path / "rubrics" / f"my_{name}.yaml").read_text()
    assert text == rubric_template(name).replace(f"id: {name}\n", f"id: my_{name}\n", 1)


def test_the_templates_shared_with_this_repository_are_its_rubrics() -> None:
    for name in ("goal_completion", "answer_quality", "preference"):
        assert rubric_template(name) == (REPO / "rubrics" / f"{name}.yaml").read_text(), name


def test_rubrics_new_never_overwrites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rubrics").mkdir()
    (tmp_path / "rubrics" / "tone.yml").write_text("id: tone\n")
    code, out = invoke(["rubrics", "new", "tone", "--template", "answer_quality"])
    assert (code, out) == (
        2,
        "judgekit: error: rubrics/tone.yml already exists; pick another id or edit that file\n",
    )
    assert sorted(p.name for p in (tmp_path / "rubrics").iterdir()) == ["tone.yml"]


def test_an_unknown_template_lists_the_valid_ones(tmp_path: Path) -> None:
    code, out = invoke(["rubrics", "new", "x", "--template", "tone", "--dir", str(tmp_path)])
    assert (code, out) == (
        2,
        "judgekit: error: Invalid value for '--template': 'tone' is not one of "
        "'goal_completion', 'answer_quality', 'preference', 'tool_use'. "
        "(see judgekit rubrics new --help)\n",
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", ["../escape", ".hidden", "tone.yaml", "two words", ""])
def test_a_rubric_id_must_make_a_plain_file_name(bad: str, tmp_path: Path) -> None:
    code, out = invoke(["rubrics", "new", bad, "--template", "tool_use", "--dir", str(tmp_path)])
    assert (code, out) == (
        2,
        f"judgekit: error: rubric id {bad!r}: use letters, digits, '_', '-' and '.', starting "
        "with a letter or digit, without .yaml (the file is named after it)\n",
    )
    assert list(tmp_path.iterdir()) == []


def test_help_lists_every_template() -> None:
    code, out = invoke(["rubrics", "new", "--help"])
    assert code == 0
    for name, what in RUBRIC_TEMPLATES.items():
        assert f"  {name.ljust(15)}  {what}\n" in out


def test_every_template_file_is_package_data() -> None:
    # A wheel ships only what package-data names; a template left out breaks `judgekit init`
    # in an installed judgekit while every test in a checkout passes.
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["judgekit"]
    files = [p for p in TEMPLATES.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert len(files) == 9
    for path in files:
        relative = str(path.relative_to(REPO / "judgekit"))
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns), relative
