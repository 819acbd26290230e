"""``judgekit run``: an agent over every task, N trials each, in fresh worlds."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from judgekit._util.folder_lock import output_folder_lock
from judgekit._util.jsonl import copy_lines
from judgekit._util.output_targets import refuse_output_over_input
from judgekit.cli.baseline_option import baseline_writer, echo_baseline_saved, save_baseline_option
from judgekit.cli.number_types import Seconds
from judgekit.cli.options import (
    concurrency_option,
    json_option,
    k_option,
    out_dir_option,
    reasons_option,
    tasks_option,
)
from judgekit.cli.shard_options import shard_options
from judgekit.cli.store_options import StoreChoice, store_options
from judgekit.cli.store_output import recorded_line, store_json, written_before_store
from judgekit.formats.grade import Grade
from judgekit.formats.run import Run
from judgekit.formats.task import TaskSet
from judgekit.formats.task_files import load_task_files
from judgekit.graders.summary import GradeSummary
from judgekit.graders.table import print_grade_table
from judgekit.trials.agent_choice import trial_function_for
from judgekit.trials.runner import TrialFunction, TrialLimits, run_trials
from judgekit.trials.shards import ShardPlan, plan_shard
from judgekit.trials.trial_files import RESULTS, RUNS


@click.command("run")
@tasks_option
@click.option(
    "--agent", help="An in-process agent, module:function, called as agent(task, world) -> str."
)
@click.option("--agent-cmd", help="A subprocess agent, e.g. 'python agent.py {workdir} {prompt}'.")
@click.option(
    "--trials", default=5, show_default=True, type=click.IntRange(min=1), help="Trials per task."
)
@k_option("5, or --trials if fewer")
@concurrency_option(1, "Trials at once.")
@click.option(
    "--max-tool-calls",
    default=50,
    show_default=True,
    type=click.IntRange(min=1),
    help="Cap per trial; past it the trial stops as max_tool_calls.",
)
@click.option(
    "--timeout",
    "timeout_s",
    default=300.0,
    show_default=True,
    type=Seconds(above_zero=True),
    help="Wall-time cap per trial, in seconds.",
)
@out_dir_option("judgekit-run", "Folder for runs.jsonl, results.jsonl and results.csv.")
@click.option(
    "--resume", is_flag=True, help="Keep the trials already in --out and run only the missing ones."
)
@shard_options
@save_baseline_option
@reasons_option
@json_option
@store_options
def run_command(
    tasks_path: Path,
    agent: str | None,
    agent_cmd: str | None,
    trials: int,
    k: int | None,
    concurrency: int,
    max_tool_calls: int,
    timeout_s: float,
    out_dir: Path,
    resume: bool,
    shard: str | None,
    shard_from_env: bool,
    shard_group: str | None,
    save_baseline: Path | None,
    reasons: bool,
    as_json: bool,
    store: StoreChoice,
) -> None:
    """Run an agent over every task for --trials trials, each in a fresh world, then grade.

    Trials are written to --out as they finish; an interrupted run keeps them and
    --resume completes it. A crash, a timeout or a cap fails that trial, never the run.
    At the end, the runs and grades are recorded in the store (--no-store: not).

    The suite's headline is the pass@1 of all runs pooled, then pass@k and pass^k as the
    mean over tasks of each task's estimator (τ-bench's convention); a task with fewer than
    k runs is left out of that mean and named, and with none left both are undefined.

    A suite that names code is code, like a conftest.py: run imports its tools: module and
    the modules its $custom matchers name, and runs them. Run only suites you trust.

    \b
    Example:
      judgekit run --tasks tasks/shop.yaml --agent examples.shop:agent --trials 20 --out out
    """
    refuse_output_over_input([save_baseline], [tasks_path, out_dir / RUNS])
    limits = TrialLimits(max_tool_calls=max_tool_calls, timeout_s=timeout_s)
    tasks = load_task_files(tasks_path)
    trial = trial_function_for(tasks, agent=agent, agent_cmd=agent_cmd, limits=limits)
    sharding = plan_shard(
        shard,
        shard_group,
        tasks,
        trials,
        store=store.enabled,
        baseline=save_baseline is not None,
        from_env=shard_from_env,
    )
    # One process at a time in --out: two --resume would run the same missing trials twice.
    with output_folder_lock(out_dir):
        with baseline_writer(save_baseline) as baseline:
            summary = _run_with_progress(
                tasks, trial, trials, out_dir, concurrency, resume, sharding, quiet=as_json
            )
            if baseline is not None:
                copy_lines(out_dir / RESULTS, baseline)
        recorded = None
        if store.enabled:
            from judgekit.store.record_files import record_graded_runs

            # Recorded at the end, keyed by the whole runs.jsonl: a run completed with
            # --resume records its full set once, not each attempt's part.
            with written_before_store(f"runs and results written to {out_dir}"):
                recorded = record_graded_runs(
                    out_dir / RUNS,
                    out_dir / RESULTS,
                    source="run",
                    provenance=store.provenance(extra_tags=sharding.tags()),
                    key=sharding.batch_key,
                    shard=sharding.label,
                )
    chosen_k = k if k is not None else min(5, trials)
    if as_json:
        report = summary.as_dict(k=chosen_k)
        report["out"] = str(out_dir)
        report["store"] = store_json(recorded)
        click.echo(json.dumps(report, ensure_ascii=False))
        return
    print_grade_table(summary, Console(emoji=False), show_reasons=reasons, k=chosen_k)
    click.echo(f"wrote {out_dir / 'runs.jsonl'}, results.jsonl and results.csv")
    echo_baseline_saved(save_baseline)
    if recorded is not None:
        click.echo(recorded_line(recorded.grades, "grades", recorded))


def _run_with_progress(
    tasks: TaskSet,
    trial: TrialFunction,
    trials: int,
    out_dir: Path,
    concurrency: int,
    resume: bool,
    sharding: ShardPlan,
    *,
    quiet: bool,
) -> GradeSummary:
    """The trials with a progress bar on stderr; Ctrl-C keeps the finished ones, exit 130."""
    console = Console(stderr=True)
    columns = (TextColumn("trials"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True, disable=quiet) as progress:
        bar = progress.add_task("trials", total=sharding.pairs)

        def advance(_run: Run, _grade: Grade) -> None:
            progress.advance(bar)

        try:
            return run_trials(
                tasks,
                trial,
                trials=trials,
                out_dir=out_dir,
                concurrency=concurrency,
                resume=resume,
                on_trial=advance,
                shard=sharding.shard,
                shard_group=sharding.group,
                batch_key=sharding.batch_key,
            )
        except KeyboardInterrupt:
            console.print(
                f"interrupted: finished trials are kept in {out_dir}; rerun with --resume"
            )
            raise SystemExit(130) from None
