"""The command group imports a command's module only when the command is used, and its help
listing, printed from a table, is the one click would print from the commands themselves."""

from __future__ import annotations

import inspect
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner
from click.utils import make_default_short_help

from judgekit.cli.command_table import COMMANDS
from judgekit.cli.lazy_group import LazyCommand, LazyGroup, load_command
from tests.conftest import REPO


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_table_names_the_command_and_its_summary(name: str) -> None:
    command = load_command(COMMANDS[name].home)
    assert command.name == name
    assert command.help is not None
    assert COMMANDS[name].summary == inspect.cleandoc(command.help).split("\n\n")[0]
    assert command.short_help is None and not command.hidden and not command.deprecated
    # Any terminal width: the line of the listing is the one click makes from the command.
    for limit in range(1, 130):
        assert make_default_short_help(COMMANDS[name].summary, limit) == (
            command.get_short_help_str(limit)
        )


def test_every_command_module_is_in_the_table() -> None:
    modules = {path.stem for path in (REPO / "judgekit" / "cli").glob("*_cmd.py")}
    homes = {entry.home.partition(":")[0].rsplit(".", 1)[1] for entry in COMMANDS.values()}
    assert homes == modules


@pytest.mark.parametrize("width", [40, 60, 80, 100, 200])
def test_the_listing_is_clicks_own(width: int) -> None:
    """A fresh lazy group, nothing loaded, lists what an eager group of the same commands does."""
    lazy = LazyGroup("judgekit", lazy_commands=COMMANDS)
    eager = click.Group("judgekit", {name: load_command(e.home) for name, e in COMMANDS.items()})
    listings = []
    for group in (lazy, eager):
        ctx = click.Context(group, terminal_width=width)
        formatter = ctx.make_formatter()
        group.format_commands(ctx, formatter)
        listings.append(formatter.getvalue())
    assert not lazy.commands  # listed without importing a command
    assert listings[0] == listings[1]
    assert listings[0].startswith("Commands:\n  align       Propose")  # fake-judge sets the width


def test_a_command_is_loaded_once_and_kept() -> None:
    group = LazyGroup("judgekit", lazy_commands=COMMANDS)
    ctx = click.Context(group)
    first = group.get_command(ctx, "schema")
    assert first is not None and group.get_command(ctx, "schema") is first
    assert list(group.commands) == ["schema"]
    assert group.get_command(ctx, "nosuch") is None


def test_an_unknown_command_is_matched_against_every_command() -> None:
    group = LazyGroup("judgekit", lazy_commands=COMMANDS)
    result = CliRunner().invoke(group, ["sotre"])
    assert result.exit_code == 2
    assert "Error: No such command 'sotre'. Did you mean 'store'?\n" in result.output
    assert not group.commands


def test_a_home_that_is_not_a_command_is_refused() -> None:
    with pytest.raises(TypeError, match=r"^judgekit.cli.command_table:COMMANDS is not"):
        load_command("judgekit.cli.command_table:COMMANDS")
    missing = LazyGroup("g", lazy_commands={"x": LazyCommand("judgekit.cli.main:nothing", "X.")})
    with pytest.raises(AttributeError):
        missing.get_command(click.Context(missing), "x")


def _modules_after(args: list[str]) -> list[str]:
    """The modules ``judgekit ARGS`` imports beyond a bare interpreter's, in a fresh process."""
    probe = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from click.testing import CliRunner\n"
        "from judgekit.cli import main\n"
        f"assert CliRunner().invoke(main, {args!r}).exit_code == 0\n"
        "print('\\n'.join(sorted(set(sys.modules) - before)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.split()


def test_help_imports_click_and_judgekit_light_modules_only() -> None:
    loaded = _modules_after(["--help"])
    assert [m for m in loaded if m.startswith("judgekit")] == [
        "judgekit",
        "judgekit._util",
        "judgekit._util.input_paths",
        "judgekit._util.lazy_exports",
        "judgekit._util.redaction",
        "judgekit._util.version",
        "judgekit.cli",
        "judgekit.cli.command_table",
        "judgekit.cli.lazy_group",
        "judgekit.cli.main",
        "judgekit.errors",
    ]
    third_party = {m.split(".")[0] for m in loaded} - set(sys.stdlib_module_names)
    assert third_party == {"click", "judgekit"}


def test_version_imports_no_command() -> None:
    loaded = _modules_after(["--version"])
    assert not [m for m in loaded if m.startswith("judgekit.cli.") and m.endswith("_cmd")]


def test_no_commands_help_imports_a_provider_sdk_sqlalchemy_or_numpy() -> None:
    """Each command's ``--help``, in turn in one fresh process: the heavy libraries each one
    brought in (none: they are imported where a command first needs them)."""
    heavy = ["openai", "anthropic", "sqlalchemy", "numpy", "scipy", "sklearn", "matplotlib"]
    probe = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from judgekit.cli import main\n"
        f"for name in {sorted(COMMANDS)!r}:\n"
        "    assert CliRunner().invoke(main, [name, '--help']).exit_code == 0, name\n"
        f"    print(name, sorted(m for m in {heavy!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout == "".join(f"{name} []\n" for name in sorted(COMMANDS))


LIGHT_HELP = ["align", "demo", "grade", "init", "judge", "monitor", "recheck"]


@pytest.mark.parametrize("name", LIGHT_HELP)
def test_these_commands_help_imports_no_pydantic_or_yaml(name: str) -> None:
    """Their modules read rubrics and files only when they run (the shared options included)."""
    loaded = _modules_after([name, "--help"])
    assert [m for m in loaded if m.split(".")[0] in ("pydantic", "pydantic_core", "yaml")] == []
    assert not [m for m in loaded if m.startswith("judgekit.formats")]
