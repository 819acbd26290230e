"""MkDocs hook: the commands reference lists every subcommand a group has.

mkdocs-click takes a group's subcommands from ``group.commands`` when it holds any, so a
group that makes some of its commands on demand (``judgekit import`` builds one command per
registered importer in ``get_command``) would show only the others. Click's own contract for
a group's commands is ``list_commands`` and ``get_command``: the listing is read that way.
"""

from __future__ import annotations

from typing import Any

import click
import mkdocs_click._docs as click_docs


def _sub_commands(command: click.Command, ctx: click.Context) -> list[click.Command]:
    if not isinstance(command, click.Group):
        return []
    found = (command.get_command(ctx, name) for name in command.list_commands(ctx))
    return [sub for sub in found if sub is not None]


def on_startup(**_: Any) -> None:
    click_docs._get_sub_commands = _sub_commands
