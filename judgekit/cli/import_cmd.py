"""``judgekit import``: convert provider transcripts into judgekit runs."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import click

from judgekit._util.atomic_files import atomic_writer
from judgekit.errors import DataError
from judgekit.formats.run import Run, run_json
from judgekit.importers.unique_ids import UniqueRunIds

# Past this many repeated ids, the rest are summed up in one line.
RENAMED_SHOWN = 10


class ImportTally:
    """Counts what passes through, for the one-line report at the end."""

    def __init__(self) -> None:
        self.runs = 0
        self.calls = 0
        self.invalid_arguments = 0
        self.tool_errors = 0

    def count(self, runs: Iterable[Run]) -> Iterator[Run]:
        for run in runs:
            self.runs += 1
            self.calls += len(run.tool_calls)
            self.invalid_arguments += sum(c.arguments_error is not None for c in run.tool_calls)
            self.tool_errors += sum(c.error is not None for c in run.tool_calls)
            yield run

    def line(self) -> str:
        return (
            f"imported {self.runs} runs with {self.calls} tool calls "
            f"({self.tool_errors} tool errors, {self.invalid_arguments} with invalid arguments)"
        )


def _say_renamed(source: Path, run_ids: UniqueRunIds) -> None:
    """One warning per run id the import had to make unique (at most RENAMED_SHOWN)."""
    renamed = list(run_ids.renamed.items())
    for original, new_ids in renamed[:RENAMED_SHOWN]:
        shown = ", ".join(repr(new_id) for new_id in new_ids)
        click.echo(
            f"judgekit: warning: {source}: run id {original!r} appears {len(new_ids) + 1} "
            f"times; the later runs are {shown} (each run id must appear once)",
            err=True,
        )
    if len(renamed) > RENAMED_SHOWN:
        click.echo(
            f"judgekit: warning: {source}: {len(renamed) - RENAMED_SHOWN} more run ids appear "
            "several times, renamed the same way (#2, #3, ...)",
            err=True,
        )


def _write(runs: Iterable[Run], output: Path | None, source: Path) -> None:
    tally = ImportTally()
    counted = _refuse_none(tally.count(runs), source)
    if output is None:
        for run in counted:
            sys.stdout.write(_run_line(run, source))
    else:
        with atomic_writer(output) as fh:
            for run in counted:
                fh.write(_run_line(run, source))
    destination = f" to {output}" if output is not None else ""
    click.echo(tally.line() + destination, err=True)


def _run_line(run: Run, source: Path) -> str:
    """The run's JSONL line; one no reader could take back is refused, naming the source."""
    try:
        return run_json(run, exclude_defaults=True) + "\n"
    except DataError as exc:
        raise DataError(exc.message, path=source) from None


def _refuse_none(runs: Iterable[Run], source: Path) -> Iterator[Run]:
    """The runs; none at all is an error raised before the output file appears (every
    command refuses a runs file without runs)."""
    empty = True
    for run in runs:
        empty = False
        yield run
    if empty:
        raise DataError("no conversations in this file: no runs to import", path=source)


_output_option = click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write runs.jsonl (default: standard output).",
)
_task_id_option = click.option(
    "--task-id", help="Task id for conversations that carry none (default: the file name)."
)


@click.group("import")
def import_group() -> None:
    """Convert transcripts (OpenAI Chat Completions, Anthropic Messages) into runs.jsonl.

    Each conversation becomes one run, its tool calls kept in order with their arguments
    and results; run fields stored beside the messages (`run_id`, `task_id`, `final_state`,
    ...) carry over.

    \b
    Example:
      judgekit import openai examples/transcripts/shop_openai.jsonl -o runs.jsonl
      judgekit import anthropic examples/transcripts/shop_anthropic.json -o runs.jsonl
      judgekit grade runs.jsonl --tasks tasks/shop.yaml --out results
    """


@import_group.command("openai")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@_output_option
@_task_id_option
@click.option(
    "--error-pattern",
    default=r"^\s*Error\b",
    show_default=True,
    help="Regex marking a tool result as an error (OpenAI transcripts carry no error flag); "
    "'' to mark none.",
)
def import_openai_command(
    file: Path, output: Path | None, task_id: str | None, error_pattern: str
) -> None:
    """Import OpenAI Chat Completions transcripts from FILE.

    FILE holds one conversation (a message list, or an object with `messages`), a JSON
    array of conversations, or one conversation per line; .gz is read directly.

    \b
    Example:
      judgekit import openai transcripts.jsonl -o runs.jsonl
    """
    from judgekit.importers.openai_chat import import_openai

    run_ids = UniqueRunIds()
    pattern = error_pattern or None
    _write(
        import_openai(file, task_id=task_id, error_pattern=pattern, run_ids=run_ids), output, file
    )
    _say_renamed(file, run_ids)


@import_group.command("anthropic")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@_output_option
@_task_id_option
def import_anthropic_command(file: Path, output: Path | None, task_id: str | None) -> None:
    """Import Anthropic Messages transcripts (tool_use / tool_result blocks) from FILE.

    \b
    Example:
      judgekit import anthropic conversations.jsonl -o runs.jsonl
    """
    from judgekit.importers.anthropic_messages import import_anthropic

    run_ids = UniqueRunIds()
    _write(import_anthropic(file, task_id=task_id, run_ids=run_ids), output, file)
    _say_renamed(file, run_ids)
