"""``judgekit schema``: print the JSON Schema of a file format."""

from __future__ import annotations

import json

import click

from judgekit.formats.schema import FORMATS, json_schema


@click.command("schema")
@click.argument("name", type=click.Choice(sorted(FORMATS)))
def schema_command(name: str) -> None:
    """Print the JSON Schema of a file format (run, task, grade, rubric, label, verdict).

    \b
    Example:
      judgekit schema task > task.schema.json
    """
    click.echo(json.dumps(json_schema(name), indent=2))
