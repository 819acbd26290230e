"""Step 5: the monitor over the demo's store, the HTML report and the plots — what
``judgekit monitor --plot`` and ``judgekit report`` write, with the demo's rubrics so their
statuses (promoted, calibrating) show."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from judgekit._util.terminal_text import visible_markup
from judgekit.demo.common import K, say
from judgekit.formats.rubric_file import load_rubric
from judgekit.monitoring.plot_files import write_plots
from judgekit.monitoring.render import print_monitor_report
from judgekit.monitoring.since import parse_since
from judgekit.store.record_files import table_counts
from judgekit.store.run_filter import RunFilter

if TYPE_CHECKING:
    from judgekit.monitoring.monitor import MonitorReport
    from judgekit.store import Store

TITLE = "judgekit demo (stub agents, simulated judges)"
SINCE = "90d"  # the monitor's and the report's default


@dataclass(frozen=True)
class Written:
    report: Path
    plots: list[Path]
    monitor: MonitorReport


def monitor_and_report(
    store: Store,
    batch_ids: Sequence[int],
    rubric_files: Sequence[Path],
    labels_dir: Path,
    out: Path,
    console: Console,
    *,
    only: RunFilter,
) -> Written:
    """Write ``out/report.html`` and ``out/scores.png`` (with ``scores.cost_turns.png``)
    of the runs ``only`` lets through; the report's task table holds the grades of every
    batch in ``batch_ids``."""
    from judgekit.report import write_report
    from judgekit.report.gather import build_report_content

    counts = ", ".join(f"{table} {n}" for table, n in table_counts(store).items())
    say(console, f"the store holds: {counts}")
    content, monitor = build_report_content(
        store,
        title=TITLE,
        batch=store.batch_with_grades(f"batch:{batch_ids[0]}"),
        grades=[grade for batch_id in batch_ids for grade in store.grades(batch_id)],
        rubrics=[load_rubric(path) for path in rubric_files],
        labels_dir=labels_dir,
        since=parse_since(SINCE),
        k=K,
        only=only,
    )
    say(console, f"the monitor tonight, as `judgekit monitor {only.describe()}` prints it:")
    print_monitor_report(monitor, console)
    report = out / "report.html"
    write_report(report, content)
    plots = write_plots(monitor, out / "scores.png")
    say(
        console,
        f"wrote {visible_markup(str(report))} ({len(content.images)} plots embedded, no script, no "
        f"network needed) and {', '.join(visible_markup(str(path)) for path in plots)}",
    )
    return Written(report=report, plots=plots, monitor=monitor)
