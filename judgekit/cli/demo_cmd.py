"""``judgekit demo``: the whole flow offline, with simulated judges and no API key."""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import click
from rich.console import Console

from judgekit._util.number_format import duration
from judgekit.cli.options import out_dir_option


@click.command("demo")
@out_dir_option(
    "judgekit-demo",
    "Folder for each suite's runs and results, the rubrics, verdicts, labels, "
    "promotion record, report.html and plots.",
)
def demo_command(out_dir: Path) -> None:
    """Run the whole flow offline, from trials to judges, labels, store and report.

    The shop and travel suites run with their seeded stub agents, each measured pass rate
    shown beside the rate the stub was designed with; two SIMULATED judges (a local fake
    server answering from the truth at set error rates) judge the shop's final answers;
    the bundled labels/goal_completion.jsonl stands in for hand labels; both judges are
    calibrated and the careful one promoted; ten simulated nights on branch nightly show the
    monitor catching a judge that drifts and a change that breaks one task; report.html and
    the plots show it all. No API key, no network. The store is always JUDGEKIT_HOME's, even when JUDGEKIT_DB is set.

    \b
    Example:
      judgekit demo --out judgekit-demo
    """
    from judgekit._util.folder_lock import output_folder_lock
    from judgekit.demo import run_demo  # the demo's imports load only when it runs

    started = time.monotonic()
    console = Console(emoji=False)
    # Two demos into one folder would both find it unused, then write the same files.
    with output_folder_lock(out_dir):
        run_demo(out_dir, console)
    console.print(
        f"\ndemo finished in {duration(time.monotonic() - started)}; everything is in {out_dir}"
        f"\nlook at it in the browser (transcripts, verdicts, labels; label there): "
        f"judgekit view {shlex.quote(str(out_dir))}",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )
