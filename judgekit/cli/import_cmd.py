"""``judgekit import``: convert provider transcripts into judgekit runs."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import click

from judgekit._util.atomic_files import atomic_writer
from judgekit.formats.run import Run
from judgekit.importers.runs_output import renamed_warnings, write_runs
from judgekit.importers.unique_ids import UniqueRunIds


def _write(runs: Iterable[Run], output: Path | None, source: Path) -> None:
    if output is None:
        tally = write_runs(runs, sys.stdout, source=source)
    else:
        with atomic_writer(output) as fh:
            tally = write_runs(runs, fh, source=source)
    destination = f" to {output}" if output is not None else ""
    click.echo(tally.line() + destination, err=True)


def _say_renamed(source: Path, run_ids: UniqueRunIds) -> None:
    for warning in renamed_warnings(source, run_ids):
        click.echo(f"judgekit: warning: {warning}", err=True)


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
