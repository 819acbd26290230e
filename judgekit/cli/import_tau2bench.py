"""``judgekit import tau2bench``: a τ²-bench results file as runs and a suite of its tasks."""

from __future__ import annotations

from pathlib import Path

import click

from judgekit.cli.import_sources import output_option, suite_out_option, write_runs


@click.command("tau2bench")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@output_option
@suite_out_option
def import_tau2bench_command(file: Path, output: Path | None, suite_out: Path) -> None:
    """Import a τ²-bench results file (FILE, `tau2 run`'s JSON) as runs and a suite.

    Each simulation is a run: the agent's tool calls with their results (`error` kept), its
    messages, the last one the final answer, usage, cost, duration; τ²-bench's reward and
    reward_info in metadata. One task per task of FILE: the agent's gold write actions as
    expected calls in any order (only their compare_args when given), other tools in
    ignore_tools, refused calls ignored, communicate_info as expect_answer (lowercase,
    remove_commas). A tool writes when FILE's action_checks type it `write`; a gold tool
    they never type writes when its domain (airline, retail) says so, and is otherwise
    expected. Lists compare as τ²-bench's data hash sees them (in order, but those retail
    stores sorted).

    \b
    Example:
      judgekit import tau2bench results.json -o runs.jsonl --suite-out airline.yaml
      judgekit grade runs.jsonl --tasks airline.yaml --out results --k 4
    """
    from judgekit._util.output_targets import refuse_output_over_input
    from judgekit.importers.registry import wrong_kind_error
    from judgekit.importers.runs_output import write_suite_file
    from judgekit.importers.tau2bench import import_tau2bench
    from judgekit.importers.unique_ids import UniqueRunIds

    refuse_output_over_input([output, suite_out], [file])
    refused = wrong_kind_error(file, "tau2bench")
    if refused is not None:
        raise refused
    imported = import_tau2bench(file, run_ids=UniqueRunIds())
    write_runs(imported.runs, output, source=file)
    write_suite_file(imported.suite, suite_out)
    writes = ", ".join(imported.write_tools) or "none"
    click.echo(
        f"wrote {len(imported.suite['tasks'])} tasks to {suite_out} (writes: {writes})", err=True
    )
