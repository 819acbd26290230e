"""``judgekit demo``: the whole flow offline, with simulated judges and no API key."""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich.console import Console


@click.command("demo")
@click.option(
    "--out",
    "out_dir",
    default="judgekit-demo",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder for the runs, results, rubrics, verdicts, labels and promotion record.",
)
def demo_command(out_dir: Path) -> None:
    """Run the whole flow offline: trials, judging, hand labels, calibration, promotion.

    The shop suite runs with the seeded stub agent; two SIMULATED judges (a local fake
    server answering from the truth at set error rates) judge the final answers; the truth
    for a stratified sample stands in for hand labels; both judges are calibrated and the
    careful one promoted. No API key, no network. The store is JUDGEKIT_HOME's.

    \b
    Example:
      judgekit demo --out judgekit-demo
    """
    from judgekit.demo import run_demo  # the demo's imports load only when it runs

    started = time.monotonic()
    console = Console()
    run_demo(out_dir, console)
    console.print(
        f"\ndemo finished in {time.monotonic() - started:.1f} s; everything is in {out_dir}",
        highlight=False,
        soft_wrap=True,
    )
