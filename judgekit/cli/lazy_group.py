"""A command group that imports a command's module only when that command is used.

``judgekit --help`` lists every command, and importing every command module would load what
they import (pydantic models, rich, YAML, the judging pipeline) just to print one line each:
the listing is read from a table of the commands' summaries instead, kept equal to the
commands' own help by tests/cli/test_lazy_commands.py.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, NamedTuple

import click


class LazyCommand(NamedTuple):
    """Where a command lives (``module:attribute``) and the first paragraph of its help."""

    home: str
    summary: str


class LazyGroup(click.Group):
    """A group whose commands, from ``lazy_commands`` (name → :class:`LazyCommand`), are
    imported the first time one is looked up; the help lists them from their summaries."""

    def __init__(self, *args: Any, lazy_commands: Mapping[str, LazyCommand], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = self.commands.get(cmd_name)
        if command is None and cmd_name in self.lazy_commands:
            command = load_command(self.lazy_commands[cmd_name].home)
            # Kept, so a command looked up twice is the same object, imported once.
            self.add_command(command, cmd_name)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand as exc:
            # click suggests among the loaded commands only; suggest among all of them.
            names = self.list_commands(ctx)
            raise click.exceptions.NoSuchCommand(
                exc.command_name, possibilities=names, ctx=ctx
            ) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's listing, the short helps made from the table as click makes them from
        each command's help, so the output is the same without importing any command."""
        names = [name for name in self.list_commands(ctx) if not self._hidden(name)]
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, self._short_help(ctx, name, limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def _hidden(self, name: str) -> bool:
        return name in self.commands and self.commands[name].hidden

    def _short_help(self, ctx: click.Context, name: str, limit: int) -> str:
        if name in self.commands:
            return self.commands[name].get_short_help_str(limit)
        # A command not yet imported is summarised by click's own rule, without importing it.
        summary = click.Command(name, help=self.lazy_commands[name].summary)
        return summary.get_short_help_str(limit)


def load_command(home: str) -> click.Command:
    """The command at ``home`` (``package.module:attribute``)."""
    module_name, _, attribute = home.partition(":")
    command = getattr(importlib.import_module(module_name), attribute)
    if not isinstance(command, click.Command):
        raise TypeError(f"{home} is not a click command")
    return command
