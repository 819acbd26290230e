"""The monitor and the judge recheck in the terminal: the table of every metric, the
alerts and notes, and one closing line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.table import Table

from judgekit._util.number_format import (
    DASH,
    half_width,
    interval,
    monitor_mean,
    p_value,
    setting,
    statistic,
)
from judgekit._util.terminal_text import (
    first_column_room,
    visible_markup,
    visible_name,
    visible_text,
)
from judgekit.monitoring.model import Point, Series

if TYPE_CHECKING:
    from judgekit.monitoring.monitor import MonitorReport
    from judgekit.monitoring.recheck_run import RecheckRun

__all__ = ["print_monitor_report", "print_recheck"]

_MISSING_SHOWN = 5  # labelled runs named when some were not found


def print_monitor_report(report: MonitorReport, console: Console) -> None:
    """The table, each alert, the notes (one line per note, naming its metrics), then
    whether anything alerted. Metric names and messages are data, shown visibly."""
    since = report.since.date().isoformat() if report.since else "the beginning"
    if not any(series.points for series in report.series):
        _line(
            console,
            f"monitor: nothing recorded since {since} in {visible_markup(report.store)}; "
            "`judgekit run`, `grade` and `judge` record what they do",
        )
        return
    console.print(_table(report, since, console.width))
    for series in report.series:
        if series.alert is not None:
            metric, message = visible_markup(series.metric), visible_markup(series.alert.message)
            _line(console, f"ALERT {metric}: {message}")
    # Series that share a note share its line: on a new store every metric is untested alike.
    notes: dict[str, list[str]] = {}
    for series in report.series:
        if series.note and series.alert is None:
            notes.setdefault(series.note, []).append(series.metric)
    for note, metrics in notes.items():
        _line(console, f"note {visible_markup(', '.join(metrics))}: {visible_markup(note)}")
    alerts = len(report.alerts)
    if alerts:
        console.print(
            f"monitor: [red]{alerts} alert{'s' if alerts > 1 else ''}[/red]", soft_wrap=True
        )
    else:
        gating = sum(s.role == "gating" and s.p_value is not None for s in report.series)
        console.print(f"monitor: no alerts ({gating} gating metrics tested)", soft_wrap=True)


def print_recheck(run: RecheckRun, console: Console) -> None:
    """The runs left out, the comparison of the kappas and, on a drop, the rubric marked
    stale."""
    missing, result = run.missing, run.result
    if missing:
        more = " …" if len(missing) > _MISSING_SHOWN else ""
        console.print(
            f"note: {len(missing)} labelled runs not found, left out: "
            f"{visible_markup(', '.join(missing[:_MISSING_SHOWN]))}" + more,
            soft_wrap=True,
        )
    status = "[red]DRIFT[/red]" if result.drifted else "[green]ok[/green]"
    console.print(f"recheck {status}: {visible_markup(result.message)}", soft_wrap=True)
    if result.drifted:
        console.print(
            f"marked {visible_markup(result.rubric_id)} stale in "
            f"{visible_markup(str(run.record_path))}: it no "
            "longer gates or alerts; label, calibrate and promote it again",
            soft_wrap=True,
        )


def _line(console: Console, text: str) -> None:
    console.print(text, soft_wrap=True, emoji=False)


def _table(report: MonitorReport, since: str, width: int) -> Table:
    table = Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
        title=visible_text(
            f"Monitor: per {report.by} since {since} ({report.store})", one_line=True
        ),
        title_justify="left",
        caption=f"latest {report.by} against the {report.policy.baseline_windows} before it "
        f"pooled; one-sided tests at alpha {setting(report.policy.alpha)} "
        f"({report.policy.correction}); "
        "Wilson intervals for proportions",
        caption_justify="left",
    )
    headers = ("latest", "95% CI", "n", "baseline", "n ", "p", "status")
    table.add_column("metric", overflow="fold", min_width=9)
    for name in headers:
        table.add_column(name, justify="right", no_wrap=True)
    rows = [_figures(series) for series in report.series]
    # The figures keep their width; a long metric name wraps after its `:` or `_`.
    room = first_column_room(width, [[h, *cells] for h, *cells in zip(headers, *rows, strict=True)])
    for series, figures in zip(report.series, rows, strict=True):
        table.add_row(visible_name(series.metric, room), *figures)
    return table


def _figures(series: Series) -> list[str]:
    latest = series.points[-1] if series.points else None
    base = series.baseline
    return [
        _value(latest, series.kind),
        _interval(latest, series.kind),
        str(latest.n) if latest else DASH,
        _value(base, series.kind),
        str(base.n) if base else DASH,
        p_value(series.p_value),
        _status(series),
    ]


def _value(point: Point | None, kind: str) -> str:
    if point is None or point.value is None:
        return DASH
    return statistic(point.value) if kind == "proportion" else monitor_mean(point.value)


def _interval(point: Point | None, kind: str) -> str:
    if point is None or point.low is None or point.high is None:
        return DASH
    if kind == "proportion":
        return interval(point.low, point.high)
    return half_width((point.high - point.low) / 2)


def _status(series: Series) -> str:
    if series.alert is not None:
        return "[red]ALERT[/red]"
    if series.role == "informational":
        return "info"
    if series.p_value is None:
        return "untested"
    return "[green]ok[/green]"
