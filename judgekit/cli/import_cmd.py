"""``judgekit import``: convert transcripts, traces and logs of other tools into judgekit runs."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import click

from judgekit._util.output_targets import refuse_output_over_input
from judgekit.cli.import_sources import (
    ImportGroup,
    output_option,
    run_import,
    task_id_option,
)
from judgekit.cli.import_tau2bench import import_tau2bench_command
from judgekit.formats.run import Run
from judgekit.importers.runs_output import write_runs_to, write_suite_file
from judgekit.importers.unique_ids import UniqueRunIds


def _write(runs: Iterable[Run], output: Path | None, source: Path) -> None:
    tally = write_runs_to(runs, output, source=source)
    destination = f" to {output}" if output is not None else ""
    click.echo(tally.line() + destination, err=True)


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
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
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
    file: Path, output: Path | None, task_id: str | None, error_pattern: str
) -> None:
    """Import OpenAI Chat Completions transcripts from FILE.

    FILE holds one conversation (a message list, or an object with `messages`), a JSON
    array of conversations, or one conversation per line; .gz is read directly.

    \b
    Example:
      judgekit import openai transcripts.jsonl -o runs.jsonl
    """
    from judgekit.importers.interface import ImportOptions

    options = ImportOptions(task_id=task_id, error_pattern=error_pattern or None)
    run_import("openai", file, output, options)


@import_group.command("anthropic")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@output_option
@task_id_option
def import_anthropic_command(file: Path, output: Path | None, task_id: str | None) -> None:
    """Import Anthropic Messages transcripts (tool_use / tool_result blocks) from FILE.

    \b
    Example:
      judgekit import anthropic conversations.jsonl -o runs.jsonl
    """
    from judgekit.importers.interface import ImportOptions

    run_import("anthropic", file, output, ImportOptions(task_id=task_id))


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
@click.option(
    "--suite-out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the tasks (a suite file judgekit grade --tasks reads).",
)
def import_bfcl_command(
    file: Path, answers: Path | None, entries: Path | None, output: Path | None, suite_out: Path
) -> None:
    """Import a BFCL result file (FILE) as runs, and its entries as a suite of tasks.

    Each task says what BFCL's AST checker accepts: each argument's possible answers,
    strings compared as BFCL standardises them, Java/JavaScript values as the source text its
    converters read (booleans only true/false, a long with L); the run holds the model's
    calls, its `result` read as BFCL's JSON form ([{name: "<JSON arguments>"}]), output in
    any other form kept as text. Lines that already carry possible_answer and function
    need neither --answers nor --entries. The category is read from each id.

    \b
    Example:
      judgekit import bfcl BFCL_v4_simple_python_result.json \\
        --answers possible_answer/BFCL_v4_simple_python.json \\
        --entries BFCL_v4_simple_python.json -o runs.jsonl --suite-out tasks.yaml
      judgekit grade runs.jsonl --tasks tasks.yaml --out results
    """
    from judgekit.formats.task import Task
    from judgekit.importers.bfcl_files import (
        bfcl_tasks_and_runs,
        join_bfcl_files,
        write_bfcl_suite,
    )

    refuse_output_over_input([output, suite_out], [file, answers, entries])
    tasks: list[Task] = []
    joined = join_bfcl_files(file, answers=answers, questions=entries)
    _write(bfcl_tasks_and_runs(joined, tasks), output, file)
    write_bfcl_suite(tasks, suite_out, name=file.stem)
    click.echo(f"wrote {len(tasks)} tasks to {suite_out}", err=True)


@import_group.command("taubench")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@output_option
@click.option(
    "--suite-out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the tasks (a suite file judgekit grade --tasks reads).",
)
def import_taubench_command(file: Path, output: Path | None, suite_out: Path) -> None:
    """Import a τ-bench trajectories file (FILE, .json or .json.gz) as runs and a suite.

    Runs are imported as `import openai` does; a run τ-bench never evaluated (reward_info
    null: it hit the step limit) gets stop_reason max_turns, so it fails, as τ-bench counts
    it. One task per τ-bench task id: its ground-truth write actions as expected calls in any
    order (order: unordered), lists of two or more ids (strings or numbers) as $unordered
    (τ-bench stores them sorted), read-only tools in ignore_tools, refused calls ignored, its
    outputs as expect_answer with τ-bench's rule (lowercase, remove_commas).

    \b
    Which tools write is read from FILE, no list per domain. A tool is read-only when
    (a) a task whose ground truth uses it left the database as a task with no actions does
    (same gt_data_hash), or (b) a run whose database τ-bench found right (r_actions 1) made a
    successful call to it that no ground-truth action of its task accounts for (extra keys
    aside). Other tools some ground truth uses write. Assumed: a tool no ground truth uses
    is read-only.

    \b
    Example:
      judgekit import taubench gpt-4o-airline.json.gz -o runs.jsonl --suite-out airline.yaml
      judgekit grade runs.jsonl --tasks airline.yaml --out results --k 4
    """
    from judgekit.importers.registry import wrong_kind_error
    from judgekit.importers.taubench import import_taubench

    refuse_output_over_input([output, suite_out], [file])
    if (refused := wrong_kind_error(file, "taubench")) is not None:
        raise refused
    run_ids = UniqueRunIds()
    imported = import_taubench(file, run_ids=run_ids)
    _write(imported.runs, output, file)
    write_suite_file(imported.suite, suite_out)
    click.echo(
        f"wrote {len(imported.suite['tasks'])} tasks to {suite_out} (writes: "
        f"{', '.join(imported.write_tools)})",
        err=True,
    )


import_group.add_command(import_tau2bench_command)
