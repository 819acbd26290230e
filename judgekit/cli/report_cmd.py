"""``judgekit report``: one self-contained HTML file with the suite, the monitor, the judges'
calibration and the plots — to attach to a pull request or a weekly review."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from judgekit._util.folder_lock import parent_folder_lock
from judgekit._util.output_targets import refuse_output_over_input
from judgekit._util.terminal_text import visible_markup
from judgekit.cli.filter_options import filter_options
from judgekit.cli.monitor_options import since_from_option
from judgekit.cli.options import (
    by_option,
    deprecated_out_option,
    labels_beside_rubrics_option,
    output_file_option,
    rubric_refs_option,
    rubrics_from,
    since_option,
)
from judgekit.formats.grade import load_results

if TYPE_CHECKING:
    from judgekit.monitoring.series import Window
    from judgekit.store.run_filter import RunFilter


@click.command("report")
@output_file_option("report.html", "The HTML file to write")
@deprecated_out_option
@click.option(
    "--batch",
    "batch_ref",
    default="latest",
    show_default=True,
    help="The graded batch whose suite is summarised: batch:ID, latest:BRANCH or latest.",
)
@click.option(
    "--results",
    "results",
    type=click.Path(path_type=Path),
    help="Summarise this results.jsonl (or folder) instead of a batch from the store.",
)
@rubric_refs_option
@labels_beside_rubrics_option
@since_option
@by_option
@filter_options(runs="the report", batches="the report (--batch's too)")
@click.option("--title", default="judgekit report", show_default=True, help="The page title.")
def report_command(
    out_path: Path,
    old_out_path: Path | None,
    batch_ref: str,
    results: Path | None,
    rubric_refs: tuple[str, ...],
    labels_dir: Path | None,
    since: str,
    by: Window,
    only: RunFilter,
    title: str,
) -> None:
    """Write one self-contained HTML report (no network needed to open it).

    It holds the suite summary and per-task table of a graded batch, every metric over
    time with its alerts, the rubrics' statuses, each rubric's latest calibration with its
    confusion matrix and disagreements, and the plots, embedded. Each suite has its own
    section (headline and tables), and a table of contents links every section. Runs the
    shards of one run recorded (a batch they share, or a folder of shard folders) show the
    shards there and missing, the runs graded of the run's, and each failing run's shard.

    --suite, --branch, --tag and --agent-version keep only the matching runs, in the
    summarised batch (the newest that matches) and in the metrics; a filter that matches
    nothing recorded is exit 2.

    \b
    Example:
      judgekit report -o report.html --batch latest:main
      judgekit report -o shop.html --branch main --suite shop
    """
    out_path = old_out_path or out_path
    start = since_from_option(since)  # a bad --since is refused before the store is opened
    from judgekit.errors import StoreError
    from judgekit.report import write_report
    from judgekit.report.gather import build_report_content
    from judgekit.store.database import open_store, store_file

    refuse_output_over_input([out_path], [results, store_file()])
    grades = list(load_results(results)) if results is not None else None
    from judgekit.store.shard_status import folder_run_shards

    shards = folder_run_shards(results, grades) if results and grades is not None else None
    with open_store() as store:
        batch = None
        if grades is None:
            try:
                batch = store.batch_with_grades(batch_ref, only=only)
            except StoreError:
                if batch_ref != "latest":
                    raise
        content, monitor = build_report_content(
            store,
            title=title,
            batch=batch,
            grades=grades,
            rubrics=rubrics_from(rubric_refs),
            labels_dir=labels_dir,
            since=start,
            by=by,
            only=only,
            shards=shards,
        )
    with parent_folder_lock(out_path):
        write_report(out_path, content)
    console = Console(highlight=False, emoji=False)
    suite = content.summary
    what = "no graded runs" if suite is None else f"{suite['runs']} runs"
    if batch is not None:
        what += f" of batch {batch.id}"
    if content.shards is not None and not content.shards.complete:
        what += f" (shards incomplete: {content.shards.graded_text()})"
    console.print(
        f"wrote {visible_markup(str(out_path))}: {what}, {len(monitor.series)} metrics, "
        f"{len(monitor.alerts)} alerts, {len(content.calibrations)} calibrations, "
        f"{len(content.images)} plots",
        soft_wrap=True,
    )
