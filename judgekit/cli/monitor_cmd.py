"""``judgekit monitor``: every metric over time from the store; exit 1 on a drift alert."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from judgekit._util.output_targets import refuse_output_over_input
from judgekit._util.terminal_text import visible_markup
from judgekit.cli.filter_options import filter_options
from judgekit.cli.monitor_options import (
    EXIT_ALERT,
    RecheckOptions,
    recheck_and_print,
    recheck_options,
    since_from_option,
)
from judgekit.cli.number_types import FiniteFloatRange
from judgekit.cli.options import (
    by_option,
    json_instead_of,
    labels_beside_rubrics_option,
    rubric_refs_option,
    rubrics_from,
    since_option,
)
from judgekit.errors import ConfigError
from judgekit.monitoring.alerts import AlertPolicy

if TYPE_CHECKING:  # the monitor's queries load SQLAlchemy: only when the command runs
    from judgekit.monitoring.series import Window
    from judgekit.store.run_filter import RunFilter


@click.command("monitor")
@rubric_refs_option
@labels_beside_rubrics_option
@since_option
@by_option
@click.option(
    "--alpha",
    default=0.01,
    show_default=True,
    type=FiniteFloatRange(0, 1, min_open=True, max_open=True),
    help="Chance of a false alert in one monitor run (Holm across gating metrics).",
)
@click.option(
    "--baseline-windows",
    default=7,
    show_default=True,
    type=click.IntRange(min=1),
    help="Windows before the latest pooled as its baseline.",
)
@click.option(
    "--min-n",
    default=30,
    show_default=True,
    type=click.IntRange(min=1),
    help="Fewest runs or verdicts on each side for a test.",
)
@click.option(
    "--cost-tolerance",
    default=0.2,
    show_default=True,
    type=FiniteFloatRange(min=0),
    help="Cost or turns alert only when the mean rose by more than this (0.2 = +20%).",
)
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the scores over time as a PNG here (cost and turns beside it).",
)
@click.option(
    "--recheck",
    "recheck_ref",
    help="Instead: re-judge this promoted rubric's labelled runs with the current model and "
    "compare its kappa with the promotion record (a file or id in rubrics/).",
)
@filter_options(runs="the series", batches="the series")
@recheck_options(after_recheck_flag=True)
@json_instead_of("the table")
def monitor_command(
    rubric_refs: tuple[str, ...],
    labels_dir: Path | None,
    since: str,
    by: Window,
    alpha: float,
    baseline_windows: int,
    min_n: int,
    cost_tolerance: float,
    plot_path: Path | None,
    recheck_ref: str | None,
    only: RunFilter,
    recheck: RecheckOptions,
    as_json: bool,
) -> None:
    """Scores over time from the store, with drift alerts; exit 1 when one fires.

    Every deterministic metric (pass rate, Truth, Path, State, cost and turns per run) and
    every rubric gets a series, one point per day or batch with its 95% interval. The latest
    window is tested against the ones before it; only promoted rubrics and the grades can
    alert, drafts are shown as informational. Run it on a schedule: exit 0 quiet, 1 alert,
    2 bad input.

    With --recheck RUBRIC it re-judges the rubric's labelled runs with the current model
    instead, and exit 1 means its kappa dropped below the promotion's: the rubric is marked
    stale (the provider changed the model under the same name).

    --suite, --branch, --tag and --agent-version keep only the matching runs (e.g. main's
    batches, not pull requests'); a filter that matches nothing recorded is exit 2.

    \b
    Example:
      judgekit monitor --rubric goal_completion --since 30d --plot scores.png
      judgekit monitor --branch main --suite shop
      OPENAI_API_KEY=your-key judgekit monitor --recheck goal_completion
    """
    if recheck_ref is not None:
        if not only.is_empty:
            raise ConfigError(
                f"{only.describe()}: the filters narrow the monitor's series; --recheck "
                "judges the rubric's labelled runs, whatever their batch"
            )
        recheck_and_print(recheck_ref, recheck, labels_dir=labels_dir, as_json=as_json)
        return
    if recheck.runs_files or recheck.tasks_path is not None:
        # Files named on the command line are read, or refused: never silently left out.
        raise ConfigError(
            "--runs and --tasks go with --recheck RUBRIC (the labelled runs to judge again); "
            "the monitor itself reads the store"
        )
    from judgekit.monitoring.monitor import build_monitor_report
    from judgekit.monitoring.plot_files import spend_plot_path, write_plots
    from judgekit.monitoring.render import print_monitor_report
    from judgekit.store.database import open_store, store_file  # SQLAlchemy: when read

    if plot_path is not None:
        refuse_output_over_input([plot_path, spend_plot_path(plot_path)], [store_file()])
    start = since_from_option(since)
    policy = AlertPolicy(
        alpha=alpha, baseline_windows=baseline_windows, min_n=min_n, mean_tolerance=cost_tolerance
    )
    rubrics = rubrics_from(rubric_refs)
    with open_store() as store:
        report = build_monitor_report(
            store,
            rubrics=rubrics,
            labels_dir=labels_dir,
            since=start,
            by=by,
            policy=policy,
            only=only,
        )
    written: list[Path] = []
    if plot_path is not None:
        from judgekit._util.folder_lock import parent_folder_lock

        # Both figures by one process: never one monitor's scores beside another's costs.
        with parent_folder_lock(plot_path):
            written = write_plots(report, plot_path)
    if as_json:
        data = report.as_dict()
        data["plots"] = [str(path) for path in written]
        click.echo(json.dumps(data))
    else:
        console = Console(highlight=False, emoji=False)
        if not only.is_empty:
            console.print(f"only {visible_markup(only.describe())}", soft_wrap=True)
        print_monitor_report(report, console)
        for path in written:
            console.print(f"wrote {visible_markup(str(path))}", soft_wrap=True)
    if report.alerts:
        sys.exit(EXIT_ALERT)
