"""``judgekit rubrics``: every rubric with its version, judge and status."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich import box
from rich.console import Console
from rich.table import Table

from judgekit._util.input_paths import is_dir
from judgekit._util.terminal_text import visible_markup, visible_text
from judgekit.calibration.promotion import rubric_status
from judgekit.cli.options import json_instead_of
from judgekit.errors import DataError
from judgekit.formats.rubric import scale_kind
from judgekit.formats.rubric_file import load_rubric, load_rubrics, rubric_version
from judgekit.scaffold import RUBRIC_TEMPLATES, new_rubric


@click.group("rubrics", invoke_without_command=True)
@click.option(
    "--dir",
    "rubrics_dir",
    default="rubrics",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder of rubric YAML files.",
)
@json_instead_of("the table")
@click.pass_context
def rubrics_command(ctx: click.Context, rubrics_dir: Path, as_json: bool) -> None:
    """List every rubric with its version (a content hash), judge model and status.

    A rubric is promoted only while a passing promotion record that holds (its figures
    recomputed from its evidence, its labels and split files as promoted on) matches its
    current version; otherwise it is invalid (saying what does not hold), stale (edited
    since it was promoted), calibrating or a draft.

    \b
    `judgekit rubrics new ID --template NAME` starts a new rubric from a template.

    \b
    Example:
      judgekit rubrics --dir rubrics
      judgekit rubrics new tone --template answer_quality
    """
    if ctx.invoked_subcommand is not None:
        return
    if not is_dir(rubrics_dir):
        raise DataError(
            "no such folder; start a project with `judgekit init`, or add a rubric with "
            "`judgekit rubrics new ID --template goal_completion`",
            path=rubrics_dir,
        )
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


def _templates_help() -> str:
    width = max(map(len, RUBRIC_TEMPLATES))
    return "\n".join(f"  {name.ljust(width)}  {what}" for name, what in RUBRIC_TEMPLATES.items())


@rubrics_command.command(
    "new",
    short_help="Start a rubric from a template (--template NAME).",
    help=(
        "Start rubric ID from a template: write DIR/ID.yaml, a complete rubric to edit.\n\n"
        "Its prompt, scale, examples and judge are the template's until you edit them. An "
        "existing file is never overwritten.\n\n"
        f"\b\nTemplates:\n{_templates_help()}\n\n"
        "\b\nExample:\n  judgekit rubrics new tone --template answer_quality"
    ),
)
@click.argument("rubric_id", metavar="ID")
@click.option(
    "--template",
    required=True,
    type=click.Choice(list(RUBRIC_TEMPLATES)),
    help="The rubric to start from (listed above).",
)
@click.option(
    "--dir",
    "rubrics_dir",
    default="rubrics",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder of rubric YAML files (created if missing).",
)
def new_command(rubric_id: str, template: str, rubrics_dir: Path) -> None:
    path = new_rubric(rubric_id, template, rubrics_dir)
    version = rubric_version(load_rubric(path))
    click.echo(
        f"wrote {visible_text(str(path), one_line=True)} (rubric {rubric_id}, "
        f"{template} template, version {version}): edit its prompt and examples, then "
        f"judgekit judge RUNS --rubric {rubric_id}"
    )
