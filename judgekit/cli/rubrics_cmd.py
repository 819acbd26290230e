"""``judgekit rubrics``: every rubric with its version, judge and status."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich import box
from rich.console import Console
from rich.table import Table

from judgekit._util.terminal_text import visible_markup, visible_text
from judgekit.calibration.promotion import rubric_status
from judgekit.cli.options import json_instead_of
from judgekit.formats.rubric import scale_kind
from judgekit.formats.rubric_file import load_rubrics, rubric_version


@click.command("rubrics")
@click.option(
    "--dir",
    "rubrics_dir",
    default="rubrics",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder of rubric YAML files.",
)
@json_instead_of("the table")
def rubrics_command(rubrics_dir: Path, as_json: bool) -> None:
    """List every rubric with its version (a content hash), judge model and status.

    A rubric is promoted only while a passing promotion record matches its current
    version; otherwise it is a draft (or stale, when edited since it was promoted).

    \b
    Example:
      judgekit rubrics --dir rubrics
    """
    rows = []
    for rubric in load_rubrics(rubrics_dir):
        status, why = rubric_status(rubric, rubrics_dir)
        rows.append(
            {
                "id": rubric.id,
                "version": rubric_version(rubric),
                "scale": scale_kind(rubric.scale),
                "model": rubric.judge.model,
                "status": status,
                "why": why,
            }
        )
    if as_json:
        click.echo(json.dumps({"rubrics": rows}))
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, title="Rubrics", title_justify="left")
    for column in ("id", "version", "scale", "judge", "status"):
        table.add_column(column, no_wrap=True)
    for row in rows:
        table.add_row(
            *(
                visible_text(row[k], one_line=True)
                for k in ("id", "version", "scale", "model", "status")
            )
        )
    console = Console(emoji=False)
    console.print(table)
    for row in rows:
        console.print(
            f"{visible_markup(row['id'])}: {row['status']}, {visible_markup(row['why'])}",
            highlight=False,
        )
