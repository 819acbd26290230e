"""The public Python API and the command line's help."""

from __future__ import annotations

import click
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
