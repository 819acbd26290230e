"""The monitor page: the store's series over the last 90 days, as ``judgekit monitor``
prints them (its table and alerts) and draws them (its scores figure), computed by the
monitor's own code when the page is asked for.

The monitor reads the store (``JUDGEKIT_HOME``'s, or ``JUDGEKIT_DB``), not the files the
view shows: a store that holds nothing yet says so.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from judgekit._util.input_paths import is_file
from judgekit.errors import JudgekitError
from judgekit.monitoring.since import parse_since
from judgekit.view.data import ViewData

__all__ = ["MonitorView", "monitor_view"]

SINCE = "90d"  # judgekit monitor's default


@dataclass(frozen=True)
class MonitorView:
    """What the monitor prints, its scores figure (PNG), or why there is none."""

    text: str = ""
    png: bytes | None = None
    problem: str | None = None
    store: str = ""


def monitor_view(data: ViewData, *, draw: bool) -> MonitorView:
    """The monitor over the store, with its figure when ``draw``."""
    from rich.console import Console

    from judgekit.monitoring.monitor import build_monitor_report
    from judgekit.monitoring.render import print_monitor_report
    from judgekit.store.database import open_store, store_file

    path = store_file()
    if path is not None and not is_file(path):
        return MonitorView(
            problem=f"no store at {path} yet: nothing recorded to monitor", store=path
        )
    try:
        with open_store() as store:
            report = build_monitor_report(
                store,
                rubrics=list(data.rubrics.values()),
                labels_dir=data.sources.labels_dir,
                since=parse_since(SINCE),
            )
    except JudgekitError as exc:
        return MonitorView(problem=str(exc), store=path or "")
    console = Console(file=io.StringIO(), width=100, record=True, highlight=False, emoji=False)
    print_monitor_report(report, console)
    png = report.plots.scores if draw and report.series else None
    return MonitorView(text=console.export_text(), png=png, store=report.store)
