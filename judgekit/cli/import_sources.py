"""``judgekit import NAME FILE`` for every registered source, and the flow every import
shares: refuse a file of another kind (naming the importer to use), write, report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from judgekit.importers.interface import Importer, ImportOptions

output_option = click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write runs.jsonl (default: standard output).",
)
task_id_option = click.option(
    "--task-id", help="Task id for runs that carry none (default: the file name)."
)
ERROR_PATTERN_HELP = (
    "Regex marking a tool result as an error (this format carries no error flag); '' to mark none."
)


def run_import(name: str, file: Path, output: Path | None, options: ImportOptions) -> None:
    """Import ``file`` with the importer called ``name``: refused before anything is written
    when the file looks like another source's, or ``output`` is ``file``; one line of counts
    on standard error, and one per kind of identical duplicate dropped."""
    from judgekit._util.output_targets import refuse_output_over_input
    from judgekit.importers.registry import importer_named, wrong_kind_error
    from judgekit.importers.runs_output import renamed_warnings, write_runs_to

    refuse_output_over_input([output], [file])
    refused = wrong_kind_error(file, name)
    if refused is not None:
        raise refused
    importer = importer_named(name)
    assert importer is not None, name
    tally = write_runs_to(importer.read(file, options), output, source=file)
    destination = f" to {output}" if output is not None else ""
    click.echo(tally.line() + destination, err=True)
    for dropped in options.duplicates.lines():
        click.echo(f"{file}: {dropped}", err=True)
    for warning in renamed_warnings(file, options.run_ids):
        click.echo(f"judgekit: warning: {warning}", err=True)


def source_command(importer: Importer) -> click.Command:
    """The ``judgekit import NAME`` command of a registered source."""

    def callback(file: Path, output: Path | None, task_id: str | None, **more: Any) -> None:
        from judgekit.importers.interface import DEFAULT_ERROR_PATTERN, ImportOptions

        pattern = more.get("error_pattern", DEFAULT_ERROR_PATTERN) or None
        options = ImportOptions(task_id=task_id, error_pattern=pattern)
        run_import(importer.name, file, output, options)

    params: list[click.Parameter] = [
        click.Argument(["file"], type=click.Path(dir_okay=False, path_type=Path)),
        click.Option(
            ["-o", "--output"],
            type=click.Path(dir_okay=False, path_type=Path),
            help="Where to write runs.jsonl (default: standard output).",
        ),
        click.Option(
            ["--task-id"], help="Task id for runs that carry none (default: the file name)."
        ),
    ]
    if importer.guesses_errors:
        params.append(
            click.Option(
                ["--error-pattern"],
                default=r"^\s*Error\b",
                show_default=True,
                help=ERROR_PATTERN_HELP,
            )
        )
    example = f"\b\nExample:\n  judgekit import {importer.name} FILE -o runs.jsonl"
    help_text = f"Import {importer.what} from FILE.\n\n{importer.details}\n\n{example}"
    return click.Command(importer.name, callback=callback, params=params, help=help_text)


class ImportGroup(click.Group):
    """The ``import`` group: its own commands, then one per registered source."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._built: dict[str, click.Command] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        from judgekit.importers.registry import IMPORTERS

        return sorted({*self.commands, *IMPORTERS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = self.commands.get(cmd_name)
        if command is not None:
            return command
        from judgekit.importers.registry import importer_named

        importer = importer_named(cmd_name)
        if importer is None:
            return None
        # Built once per group, so a command looked up twice is the same command.
        built = self._built.get(cmd_name)
        if built is None:
            built = self._built[cmd_name] = source_command(importer)
        return built
