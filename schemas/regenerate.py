"""Rewrite the JSON Schema files of this folder from `judgekit schema NAME`.

Each `<name>.schema.json` holds exactly what `judgekit schema <name>` prints, for every
name the command accepts; a file for a name it no longer accepts is removed. Run it from
anywhere, after changing a file format:

    python schemas/regenerate.py

tests/formats/test_schema_files.py fails while a file is out of date.
"""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.cli.schema_cmd import schema_command

SCHEMAS_DIR = Path(__file__).resolve().parent
SUFFIX = ".schema.json"


def schema_names() -> list[str]:
    """The names `judgekit schema NAME` accepts, from the command's own argument."""
    (argument,) = schema_command.params
    assert isinstance(argument.type, click.Choice)
    return [str(name) for name in argument.type.choices]


def schema_text(name: str) -> str:
    """What `judgekit schema NAME` prints (a trailing newline included)."""
    result = CliRunner().invoke(main, ["schema", name])
    if result.exit_code != 0:
        raise RuntimeError(f"judgekit schema {name} exited {result.exit_code}: {result.output}")
    return result.stdout


def regenerate(directory: Path = SCHEMAS_DIR) -> list[Path]:
    """Write every schema file into ``directory`` and remove stale ones; returns the files."""
    written = []
    for name in schema_names():
        path = directory / f"{name}{SUFFIX}"
        path.write_text(schema_text(name), encoding="utf-8", newline="\n")
        written.append(path)
    for path in directory.glob(f"*{SUFFIX}"):
        if path not in written:
            path.unlink()
            print(f"removed {path.name} (no such schema any more)")
    return written


if __name__ == "__main__":
    for path in regenerate():
        print(f"wrote {path}")
