"""``judgekit import NAME FILE`` for every registered source, and the flow every import
shares: refuse a file of another kind (naming the importer to use), write, report."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from judgekit.formats.run import Run
    from judgekit.importers.import_files import FileImport, FilesImport
    from judgekit.importers.interface import Importer

SKIPPED_SHOWN = 5  # names of a folder's files of other kinds listed before "and N more"

FILES_HELP = (
    "Several FILEs make one runs file, their run ids unique across them (a repeat renamed "
    "ID#2, and said); a folder stands for its files of this kind, in name order (not its "
    "subfolders)."
)
files_argument = click.argument(
    "files", nargs=-1, required=True, metavar="FILE...", type=click.Path(path_type=Path)
)
output_option = click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write runs.jsonl (default: standard output).",
)
suite_out_option = click.option(
    "--suite-out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the tasks (a suite file judgekit grade --tasks reads).",
)
task_id_option = click.option(
    "--task-id", help="Task id for runs that carry none (default: the file name)."
)
ERROR_PATTERN_HELP = (
    "Regex marking a tool result as an error (this format carries no error flag); '' to mark none."
)


def write_runs(runs: Iterable[Run], output: Path | None, *, source: Path) -> None:
    """Write ``runs`` to ``output`` (standard output when None) and say what was written."""
    from judgekit.importers.runs_output import write_runs_to

    tally = write_runs_to(runs, output, source=source)
    destination = f" to {output}" if output is not None else ""
    click.echo(tally.line() + destination, err=True)


def run_import(
    name: str,
    paths: Sequence[Path],
    output: Path | None,
    *,
    task_id: str | None = None,
    error_pattern: str | None = None,
    group_by: str = "trace",
) -> None:
    """Import the files (and folders of files) ``paths`` with the importer called ``name``
    into one runs file; refused before anything is written when a file looks like another
    source's or ``output`` is one of them. One line of counts on standard error (one per
    file, then the total, when several are read), and one per kind of duplicate dropped."""
    from judgekit.importers.import_files import import_files
    from judgekit.importers.registry import importer_named

    importer = importer_named(name)
    assert importer is not None, name
    done = import_files(
        importer, paths, output, task_id=task_id, error_pattern=error_pattern, group_by=group_by
    )
    destination = f" to {output}" if output is not None else ""
    if len(done.files) == 1 and not done.skipped and not paths[0].is_dir():
        _report_one(done.files[0], destination)
    else:
        _report_several(done, destination)


def _report_one(one: FileImport, destination: str) -> None:
    from judgekit.importers.runs_output import renamed_warnings

    click.echo(one.tally.line() + destination, err=True)
    for dropped in one.dropped:
        click.echo(f"{one.path}: {dropped}", err=True)
    for warning in renamed_warnings(one.path, one.renamed):
        click.echo(f"judgekit: warning: {warning}", err=True)


def _report_several(done: FilesImport, destination: str) -> None:
    from judgekit.importers.runs_output import ImportTally, renamed_in_file_warnings

    total = ImportTally()
    for one in done.files:
        click.echo(f"{one.path}: {one.tally.line()}", err=True)
        for dropped in one.dropped:
            click.echo(f"{one.path}: {dropped}", err=True)
        total.add(one.tally)
    for folder, names in done.skipped.items():
        shown = ", ".join(names[:SKIPPED_SHOWN])
        more = f", and {len(names) - SKIPPED_SHOWN} more" if len(names) > SKIPPED_SHOWN else ""
        click.echo(f"{folder}: skipped {len(names)} files of other kinds: {shown}{more}", err=True)
    click.echo(f"{total.line()} from {len(done.files)} files{destination}", err=True)
    for one in done.files:
        for warning in renamed_in_file_warnings(one.path, one.renamed):
            click.echo(f"judgekit: warning: {warning}", err=True)


def source_command(importer: Importer) -> click.Command:
    """The ``judgekit import NAME`` command of a registered source."""

    def callback(
        files: tuple[Path, ...], output: Path | None, task_id: str | None, **more: Any
    ) -> None:
        from judgekit.importers.interface import DEFAULT_ERROR_PATTERN

        pattern = more.get("error_pattern", DEFAULT_ERROR_PATTERN) or None
        group_by = more.get("group_by", "trace")
        run_import(
            importer.name, files, output, task_id=task_id, error_pattern=pattern, group_by=group_by
        )

    params: list[click.Parameter] = [
        click.Argument(
            ["files"], nargs=-1, required=True, metavar="FILE...", type=click.Path(path_type=Path)
        ),
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
    if importer.groups:
        params.append(group_by_option(importer.groups))
    example = f"\b\nExample:\n  judgekit import {importer.name} FILE -o runs.jsonl"
    help_text = (
        f"Import {importer.what} from each FILE into one runs file.\n\n{importer.details}"
        f"\n\n{FILES_HELP}\n\n{example}"
    )
    return click.Command(importer.name, callback=callback, params=params, help=help_text)


def group_by_option(groups: tuple[str, ...]) -> click.Option:
    """``--group-by``: one run per trace (the default) or per session of traces; ``thread``,
    its older name, is taken for ``session``."""
    named = list(dict.fromkeys("session" if group == "thread" else group for group in groups))
    return click.Option(
        ["--group-by"],
        type=click.Choice(["trace", *named, "thread"]),
        metavar=f"[{'|'.join(['trace', *named])}]",
        default="trace",
        show_default=True,
        callback=lambda ctx, param, value: "session" if value == "thread" else value,
        help="One run per trace, or per session: the traces of one conversation (its session, "
        "thread or conversation id) as one run, its id the session's, every turn kept in order.",
    )


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
