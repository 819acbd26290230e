"""The monitor's two figures written as PNG files, side by side."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from judgekit._util.atomic_files import atomic_bytes_writer, atomic_files
from judgekit._util.output_targets import output_target

if TYPE_CHECKING:
    from judgekit.monitoring.monitor import MonitorReport

__all__ = ["spend_plot_path", "write_plots"]


def spend_plot_path(path: Path) -> Path:
    """Where cost and turns go beside the scores: ``scores.png`` → ``scores.cost_turns.png``."""
    return path.with_name(f"{path.stem}.cost_turns{path.suffix or '.png'}")


def write_plots(report: MonitorReport, path: Path) -> list[Path]:
    """Scores over time at ``path``; cost and turns over time beside it.

    Both files are written before either is renamed into place, so a folder that cannot
    take them leaves the old pair as it was. A ``path`` written in place (``/dev/null``, a
    FIFO, ``/dev/stdout``) has no file beside it: both figures go there, one after the
    other, and no file is created in its folder."""
    if output_target(path).replaced is None:
        with atomic_bytes_writer(path) as out:
            out.write(report.plots.scores)
            out.write(report.plots.spend)
        return [path]
    spend = spend_plot_path(path)
    with atomic_files() as files:
        files.binary(path).write(report.plots.scores)
        files.binary(spend).write(report.plots.spend)
    return [path, spend]
