"""``judgekit init [DIR]``: a first project to run, judge, label, calibrate and monitor."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from judgekit._util.terminal_text import visible
from judgekit.scaffold import init_project


@click.command("init")
@click.argument(
    "folder", default=".", type=click.Path(file_okay=False, path_type=Path), metavar="[DIR]"
)
def init_command(folder: Path) -> None:
    """Start a project in DIR (default: here) to run, judge, label, calibrate and monitor.

    A suite with a stub agent and its tools, a rubric, an empty labels folder, a CI
    workflow and a README with the next commands: agent.py, tasks/support.yaml, rubrics/goal_completion.yaml, labels/.gitkeep,
    .github/workflows/judgekit.yml, .gitignore and README.md. A file already there is never
    overwritten: the command names it and writes nothing (exit 2).

    \b
    Example:
      judgekit init my-agent
      cd my-agent
      judgekit run --tasks tasks/support.yaml --agent agent:agent --trials 40 --out results
    """
    written = init_project(folder)
    for path in written:
        click.echo(f"wrote {visible(str(path), one_line=True)}")
    if folder.resolve() != Path.cwd().resolve():
        click.echo(f"next: cd {visible(shlex.quote(str(folder)), one_line=True)}, then")
    else:
        click.echo("next:")
    click.echo(
        "  judgekit run --tasks tasks/support.yaml --agent agent:agent --trials 40 --out results"
    )
    click.echo("  (then judge, label, calibrate and monitor: see README.md)")
