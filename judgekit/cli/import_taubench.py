"""``judgekit import taubench``: a τ-bench trajectories file as runs and a suite of its tasks."""

from __future__ import annotations

from pathlib import Path

import click

from judgekit.cli.import_sources import output_option, suite_out_option, write_runs


@click.command("taubench")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@output_option
@suite_out_option
@click.option(
    "--write-tools",
    metavar="A,B,C",
    callback=lambda _ctx, _param, text: _tool_names(text),
    help="The tools that change the data, for a domain that is not τ-bench's airline or retail.",
)
def import_taubench_command(
    file: Path, output: Path | None, suite_out: Path, write_tools: list[str] | None
) -> None:
    """Import a τ-bench trajectories file (FILE, .json or .json.gz) as runs and a suite.

    Runs are imported as `import openai` does; a run τ-bench never evaluated (reward_info
    null: it hit the step limit) gets stop_reason max_turns, so it fails, as τ-bench counts
    it. One task per τ-bench task id: its ground-truth writes as expected calls in any order,
    lists a tool stores sorted as $unordered, other lists in order (as τ-bench's data hash
    sees them), read-only tools, refused calls and exact repeats of idempotent writes set
    aside, its outputs as expect_answer with τ-bench's rule (lowercase, remove_commas). A
    ground-truth write that a run τ-bench found right has no successful call for is left
    out: τ-bench's replay refused it.

    \b
    The write tools: --write-tools if given; else those of τ-bench's own domain (airline,
    retail) that FILE's tools belong to; else, said on the console, inferred from FILE: the
    tools some ground truth uses less those a run τ-bench found right called successfully
    beyond its ground truth (repeats aside).

    \b
    Example:
      judgekit import taubench gpt-4o-airline.json.gz -o runs.jsonl --suite-out airline.yaml
      judgekit grade runs.jsonl --tasks airline.yaml --out results --k 4
    """
    from judgekit._util.output_targets import refuse_output_over_input
    from judgekit.importers.registry import wrong_kind_error
    from judgekit.importers.runs_output import write_suite_file
    from judgekit.importers.taubench import import_taubench
    from judgekit.importers.unique_ids import UniqueRunIds

    refuse_output_over_input([output, suite_out], [file])
    if (refused := wrong_kind_error(file, "taubench")) is not None:
        raise refused
    run_ids = UniqueRunIds()
    imported = import_taubench(file, run_ids=run_ids, write_tools=write_tools)
    write_runs(imported.runs, output, source=file)
    write_suite_file(imported.suite, suite_out)
    click.echo(imported.write_tools.describe(), err=True)
    click.echo(f"wrote {len(imported.suite['tasks'])} tasks to {suite_out}", err=True)


def _tool_names(text: str | None) -> list[str] | None:
    names = None if text is None else [name.strip() for name in text.split(",")]
    if names is not None and not all(names):
        raise click.BadParameter(
            f"expected tool names separated by commas, got {text!r}", param_hint="--write-tools"
        )
    return names
