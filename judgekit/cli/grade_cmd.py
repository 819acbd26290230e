"""``judgekit grade``: Truth, Path and State over a file of runs."""

from __future__ import annotations

import json
from pathlib import Path

import click

from judgekit._util.folder_lock import output_folder_lock
from judgekit._util.input_paths import is_dir
from judgekit._util.output_targets import refuse_output_over_input
from judgekit.cli.baseline_option import (
    echo_baseline_saved,
    save_baseline_option,
)
from judgekit.cli.options import (
    json_option,
    k_option,
    out_dir_option,
    reasons_option,
    tasks_option,
)
from judgekit.cli.runs_file_hint import import_first_hint
from judgekit.cli.store_options import StoreChoice, store_options
from judgekit.cli.store_output import recorded_line, store_json, written_before_store


@click.command("grade")
@click.argument("runs", type=click.Path(path_type=Path))
@tasks_option
@out_dir_option(".", "Folder for results.jsonl and results.csv.")
@click.option("--skip-unknown", is_flag=True, help="Pass over runs whose task id is not loaded.")
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes, each grading chunks of the file; the results, in input order, "
    "and any error are those of one job.",
)
@k_option("the fewest runs of any task")
@save_baseline_option
@reasons_option
@json_option
@store_options
def grade_command(
    runs: Path,
    tasks_path: Path,
    out_dir: Path,
    skip_unknown: bool,
    jobs: int,
    k: int | None,
    save_baseline: Path | None,
    reasons: bool,
    as_json: bool,
    store: StoreChoice,
) -> None:
    """Grade RUNS (a runs.jsonl file) with the Truth, Path, State and Answer graders.

    RUNS may also be a folder of the --out folders of `judgekit run --shard I/N`: the shards
    are graded as the whole run, refused when one is missing, repeated, unfinished, run on
    another suite, edited since it finished (its shard.json records the sha256 of its suite
    and files), or a run id is in two. With the store, the grades go to the batch the
    shards recorded into, once it holds all of them; their runs are not recorded again.
    A shard's own runs.jsonl graded into its folder updates its shard.json.

    Answer checks only tasks with expect_answer (what the agent must have told the user).

    Prints a table per task and writes results.jsonl and results.csv (one row per run) in
    --out, then records the runs and grades in the store (--no-store: not). Exit 2 on bad
    input, with nothing written. --jobs N grades with N worker processes (memory stays
    flat; a file that is gzipped, or whose lines end in CR, is graded by one process).

    The suite's headline is the pass@1 of all runs pooled, then pass@k and pass^k as the
    mean over tasks of each task's estimator (τ-bench's convention); a task with fewer than
    k runs is left out of that mean and named, and with none left both are undefined.

    A suite that names code is code, like a conftest.py: grading imports the modules its
    $custom matchers name and runs them. Grade only suites you trust.

    \b
    Example:
      judgekit grade examples/runs/shop.jsonl --tasks tasks/shop.yaml --out results --reasons
    """
    shards_batch = None
    if store.enabled and is_dir(runs):
        from judgekit.store.shard_batch import shards_batch as find_shards_batch

        shards_batch = find_shards_batch(runs)  # checked whole before anything is written
    # The suites' models and the graders load when the command runs, not for its --help.
    from judgekit.formats.task_files import load_task_files
    from judgekit.graders.grade_file import grade_file

    results = out_dir / "results.jsonl"
    outputs = [results, out_dir / "results.csv", save_baseline]
    refuse_output_over_input(outputs, [runs, tasks_path])
    tasks = load_task_files(tasks_path)
    with output_folder_lock(out_dir):
        with import_first_hint(runs):
            summary = grade_file(
                runs,
                tasks,
                out_dir=out_dir,
                skip_unknown=skip_unknown,
                baseline=save_baseline,
                jobs=jobs,
            )
        recorded = None
        if store.enabled:
            from judgekit.store.record_files import iter_grades, record_graded_runs
            from judgekit.store.shard_batch import record_shard_grades

            written = f"results written to {results} and {out_dir / 'results.csv'}"
            with written_before_store(written):
                recorded = (
                    record_graded_runs(runs, results, source="grade", provenance=store.provenance())
                    if shards_batch is None
                    else record_shard_grades(shards_batch, iter_grades(results))
                )
    if as_json:
        report = summary.as_dict(k=k)
        report["results"] = {
            "jsonl": str(out_dir / "results.jsonl"),
            "csv": str(out_dir / "results.csv"),
        }
        report["store"] = store_json(recorded)
        click.echo(json.dumps(report, ensure_ascii=False))
        return
    from rich.console import Console

    from judgekit.graders.table import print_grade_table

    print_grade_table(summary, Console(emoji=False), show_reasons=reasons, k=k)
    click.echo(f"wrote {out_dir / 'results.jsonl'} and {out_dir / 'results.csv'}")
    echo_baseline_saved(save_baseline)
    if recorded is not None:
        click.echo(recorded_line(recorded.grades, "grades", recorded))
