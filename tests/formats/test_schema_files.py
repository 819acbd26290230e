"""schemas/<name>.schema.json are exactly what `judgekit schema NAME` prints, for every NAME.

When a format changes, `python schemas/regenerate.py` rewrites the files.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import click
import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.cli.schema_cmd import schema_command
from judgekit.formats.schema import FORMATS
from tests.conftest import REPO

SCHEMAS_DIR = REPO / "schemas"
FIX = "out of date: run `python schemas/regenerate.py`"


def _command_names() -> list[str]:
    (argument,) = schema_command.params
    assert isinstance(argument.type, click.Choice)
    return [str(name) for name in argument.type.choices]


NAMES = _command_names()


def _printed(name: str) -> str:
    result = CliRunner().invoke(main, ["schema", name])
    assert result.exit_code == 0, result.output
    return result.stdout


def _regenerate_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("regenerate", SCHEMAS_DIR / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_command_accepts_every_format() -> None:
    assert sorted(NAMES) == sorted(FORMATS)


@pytest.mark.parametrize("name", NAMES)
def test_the_file_is_what_the_command_prints(name: str) -> None:
    path = SCHEMAS_DIR / f"{name}.schema.json"
    assert path.is_file(), f"{path} is missing: run `python schemas/regenerate.py`"
    text = path.read_text(encoding="utf-8")
    assert text == _printed(name), f"{path.name} is {FIX}"
    assert text.endswith("}\n")
    schema = json.loads(text)
    assert schema["title"] == f"judgekit {name}"
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_no_file_for_a_schema_the_command_does_not_know() -> None:
    files = {path.name.removesuffix(".schema.json") for path in SCHEMAS_DIR.glob("*.schema.json")}
    assert files == set(NAMES), f"schemas/ is {FIX}"


def test_regenerate_writes_the_same_files_and_removes_stale_ones(tmp_path: Path) -> None:
    stale = tmp_path / "gone.schema.json"
    stale.write_text("{}\n", encoding="utf-8")
    written = _regenerate_module().regenerate(tmp_path)

    assert sorted(path.name for path in written) == sorted(f"{n}.schema.json" for n in NAMES)
    assert not stale.exists()
    for path in written:
        assert path.read_bytes() == (SCHEMAS_DIR / path.name).read_bytes()
