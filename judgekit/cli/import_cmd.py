"""``judgekit import``: convert transcripts, traces and logs of other tools into judgekit runs."""

from __future__ import annotations

from pathlib import Path

import click

from judgekit._util.output_targets import refuse_output_over_input
from judgekit.cli.import_sources import (
    ImportGroup,
    files_argument,
    output_option,
    run_import,
    suite_out_option,
    task_id_option,
    write_runs,
)
from judgekit.cli.import_tau2bench import import_tau2bench_command
from judgekit.cli.import_taubench import import_taubench_command


@click.group("import", cls=ImportGroup)
def import_group() -> None:
    """Convert transcripts, traces and eval logs of other tools into runs.jsonl.

    Each conversation, trace or sample becomes one run, its tool calls kept in order with
    their arguments, results and errors; turns, the final answer and token usage too. A file
    that looks like another source's is refused, naming the command to use.

    \b
    Example:
      judgekit import openai examples/transcripts/shop_openai.jsonl -o runs.jsonl
      judgekit import anthropic examples/transcripts/shop_anthropic.json -o runs.jsonl
      judgekit import otel traces.jsonl -o runs.jsonl
      judgekit grade runs.jsonl --tasks tasks/shop.yaml --out results
    """


@import_group.command("openai")
@files_argument
@output_option
@task_id_option
@click.option(
    "--error-pattern",
    default=r"^\s*Error\b",
    show_default=True,
    help="Regex marking a tool result as an error (OpenAI transcripts carry no error flag); "
    "'' to mark none.",
)
def import_openai_command(
    files: tuple[Path, ...], output: Path | None, task_id: str | None, error_pattern: str
) -> None:
    """Import OpenAI Chat Completions transcripts from each FILE into one runs file.

    A FILE holds one conversation (a message list, or an object with `messages`), a JSON
    array of conversations, or one conversation per line; .gz is read directly. Several
    FILEs make one runs file, their run ids unique across them; a folder stands for its
    files of this kind, in name order (not its subfolders).

    \b
    Example:
      judgekit import openai transcripts.jsonl -o runs.jsonl
    """
    run_import("openai", files, output, task_id=task_id, error_pattern=error_pattern or None)


@import_group.command("anthropic")
@files_argument
@output_option
@task_id_option
def import_anthropic_command(
    files: tuple[Path, ...], output: Path | None, task_id: str | None
) -> None:
    """Import Anthropic Messages transcripts (tool_use / tool_result blocks) from each FILE.

    Several FILEs make one runs file, their run ids unique across them; a folder stands for
    its files of this kind, in name order (not its subfolders).

    \b
    Example:
      judgekit import anthropic conversations.jsonl -o runs.jsonl
    """
    from judgekit.importers.interface import DEFAULT_ERROR_PATTERN

    run_import("anthropic", files, output, task_id=task_id, error_pattern=DEFAULT_ERROR_PATTERN)


@import_group.command("bfcl")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--answers",
    type=click.Path(dir_okay=False, path_type=Path),
    help="BFCL's possible-answer file for FILE's category ({id, ground_truth} lines).",
)
@click.option(
    "--entries",
    type=click.Path(dir_okay=False, path_type=Path),
    help="BFCL's question file for FILE's category ({id, question, function} lines).",
)
@output_option
@suite_out_option
def import_bfcl_command(
    file: Path, answers: Path | None, entries: Path | None, output: Path | None, suite_out: Path
) -> None:
    """Import a BFCL result file (FILE) as runs, and its entries as a suite of tasks.

    Each task says what BFCL's AST checker accepts: each argument's possible answers,
    strings compared as BFCL standardises them, Java/JavaScript values as the source text its
    converters read (booleans only true/false, a long with L); the run holds the model's
    calls, its `result` read as BFCL's JSON form ([{name: "<JSON arguments>"}]) or, from a
    prompt-mode model, as text ("[f(a=1), g(b='x')]") decoded as BFCL decodes it (text
    that does not decode is kept as the final answer, and counted); token counts and
    latency become the run's usage. Lines that already carry possible_answer and function
    need neither --answers nor --entries. The category is read from each id.

    \b
    Example:
      judgekit import bfcl BFCL_v4_simple_python_result.json \\
        --answers possible_answer/BFCL_v4_simple_python.json \\
        --entries BFCL_v4_simple_python.json -o runs.jsonl --suite-out tasks.yaml
      judgekit grade runs.jsonl --tasks tasks.yaml --out results
    """
    from judgekit.importers.bfcl_files import BfclImport, join_bfcl_files, write_bfcl_suite

    refuse_output_over_input([output, suite_out], [file, answers, entries])
    imported = BfclImport()
    runs = imported.runs(join_bfcl_files(file, answers=answers, questions=entries))
    write_runs(runs, output, source=file)
    write_bfcl_suite(imported.tasks, suite_out, name=file.stem)
    click.echo(f"wrote {len(imported.tasks)} tasks to {suite_out}", err=True)
    if (undecoded := imported.undecoded_line()) is not None:
        click.echo(undecoded, err=True)


import_group.add_command(import_taubench_command)
import_group.add_command(import_tau2bench_command)
