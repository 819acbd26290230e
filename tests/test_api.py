"""The public Python API and the command line's help."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

import judgekit
from judgekit.cli import main


def test_all_names_exist_and_are_sorted() -> None:
    assert judgekit.__all__ == sorted(judgekit.__all__)
    for name in judgekit.__all__:
        assert hasattr(judgekit, name), name


def test_the_documented_api_is_exported() -> None:
    for name in (
        "load_runs",
        "load_tasks",
        "grade_run",
        "grade_runs",
        "Run",
        "Task",
        "Grade",
        "DataError",
    ):
        assert name in judgekit.__all__


def _commands(
    group: click.Group, prefix: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], click.Command]]:
    found: list[tuple[tuple[str, ...], click.Command]] = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        path = (*prefix, name)
        found.append((path, command))
        if isinstance(command, click.Group):
            found.extend(_commands(command, path))
    return found


def test_every_command_has_help_with_an_example() -> None:
    runner = CliRunner()
    commands = _commands(main)
    assert {" ".join(p) for p, _ in commands} >= {
        "grade",
        "import",
        "import openai",
        "import anthropic",
        "schema",
    }
    for path, command in commands:
        result = runner.invoke(main, [*path, "--help"])
        assert result.exit_code == 0, path
        assert command.help, path
        if not isinstance(command, click.Group):
            assert "Example:" in result.output, path
            assert f"judgekit {' '.join(path)}" in result.output, path


def test_importing_judgekit_loads_its_api_on_first_use() -> None:
    """`import judgekit` (as every command does) loads no model, grader or judge module; a
    name of the API is imported the first time it is read."""
    probe = (
        "import sys\n"
        "import judgekit\n"
        "print(sorted(m for m in sys.modules if m.startswith(('judgekit.', 'pydantic'))))\n"
        "judgekit.load_runs\n"
        "print('judgekit.formats.run' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == (
        "['judgekit._util', 'judgekit._util.lazy_exports', 'judgekit._util.redaction', "
        "'judgekit._util.version', 'judgekit.errors']\nTrue\n"
    )


def test_a_name_outside_the_api_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match=r"^module 'judgekit' has no attribute 'nothing'$"):
        judgekit.nothing  # noqa: B018
