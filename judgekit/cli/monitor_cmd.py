"""``judgekit monitor``: every metric over time from the store; exit 1 on a drift alert."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich import box
from rich.console import Console
from rich.table import Table

from judgekit._util.input_paths import is_dir
from judgekit._util.terminal_text import visible_markup, visible_text
from judgekit.cli.options import (
    by_option,
    labels_beside_rubrics_option,
    rubric_refs_option,
    since_option,
)
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric, load_rubrics
from judgekit.monitoring.alerts import AlertPolicy
from judgekit.monitoring.model import Point, Series

if TYPE_CHECKING:  # the monitor's queries load SQLAlchemy: only when the command runs
    from judgekit.monitoring.monitor import MonitorReport
    from judgekit.monitoring.series import Window

EXIT_ALERT = 1
DASH = "—"
_DAYS = re.compile(r"^(\d+)d$")


def parse_since(text: str, *, now: datetime | None = None) -> datetime:
    """``2026-09-01`` (a UTC day) or ``90d`` (that many days back from now).

    >>> parse_since("30d", now=datetime(2026, 11, 29, 12, tzinfo=UTC)).isoformat()
    '2026-10-30T12:00:00+00:00'
    >>> parse_since("2026-09-01").isoformat()
    '2026-09-01T00:00:00+00:00'
    """
    days = _DAYS.match(text.strip())
    if days:
        return (now or datetime.now(UTC)) - timedelta(days=int(days.group(1)))
    try:
        day = datetime.strptime(text.strip(), "%Y-%m-%d")
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a date; expected YYYY-MM-DD or a number of days such as 90d"
        ) from None
    return day.replace(tzinfo=UTC)


def rubrics_from(refs: tuple[str, ...]) -> list[Rubric]:
    """The rubrics named (files, folders or ids in rubrics/), else every one in rubrics/."""
    if not refs:
        return load_rubrics("rubrics") if is_dir("rubrics") else []
    found: list[Rubric] = []
    for ref in refs:
        found += load_rubrics(ref) if is_dir(ref) else [load_rubric(ref)]
    return found


def _value(point: Point | None, kind: str) -> str:
    if point is None or point.value is None:
        return DASH
    return f"{point.value:.3f}" if kind == "proportion" else f"{point.value:.4g}"


def _interval(point: Point | None, kind: str) -> str:
    if point is None or point.low is None or point.high is None:
        return DASH
    if kind == "proportion":
        return f"{point.low:.2f}–{point.high:.2f}"
    return f"±{(point.high - point.low) / 2:.2g}"


def _status(series: Series) -> str:
    if series.alert is not None:
        return "[red]ALERT[/red]"
    if series.role == "informational":
        return "info"
    if series.p_value is None:
        return "untested"
    return "[green]ok[/green]"


def _p(value: float | None) -> str:
    if value is None:
        return DASH
    return "<0.0001" if value < 0.0001 else f"{value:.3g}"


def print_monitor_report(report: MonitorReport, console: Console) -> None:
    since = report.since.date().isoformat() if report.since else "the beginning"
    if not any(series.points for series in report.series):
        console.print(
            f"monitor: nothing recorded since {since} in {visible_markup(report.store)}; "
            "`judgekit run`, `grade` and `judge` record what they do",
            soft_wrap=True,
            emoji=False,
        )
        return
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
        f"pooled; one-sided tests at alpha {report.policy.alpha:g} ({report.policy.correction}); "
        "Wilson intervals for proportions",
        caption_justify="left",
    )
    table.add_column("metric", overflow="fold", min_width=9)
    for name in ("latest", "95% CI", "n", "baseline", "n ", "p", "status"):
        table.add_column(name, justify="right", no_wrap=True)
    for series in report.series:
        latest = series.points[-1] if series.points else None
        base = series.baseline
        table.add_row(
            visible_text(series.metric, one_line=True),
            _value(latest, series.kind),
            _interval(latest, series.kind),
            str(latest.n) if latest else DASH,
            _value(base, series.kind),
            str(base.n) if base else DASH,
            _p(series.p_value),
            _status(series),
        )
    console.print(table)
    for series in report.series:
        if series.alert is not None:
            console.print(
                f"ALERT {visible_markup(series.metric)}: {visible_markup(series.alert.message)}",
                soft_wrap=True,
                emoji=False,
            )
    # Series that share a note share its line: on a new store every metric is untested alike.
    notes: dict[str, list[str]] = {}
    for series in report.series:
        if series.note and series.alert is None:
            notes.setdefault(series.note, []).append(series.metric)
    for note, metrics in notes.items():
        console.print(
            f"note {visible_markup(', '.join(metrics))}: {visible_markup(note)}",
            soft_wrap=True,
            emoji=False,
        )
    alerts = len(report.alerts)
    if alerts:
        console.print(
            f"monitor: [red]{alerts} alert{'s' if alerts > 1 else ''}[/red]", soft_wrap=True
        )
    else:
        gating = sum(s.role == "gating" and s.p_value is not None for s in report.series)
        console.print(f"monitor: no alerts ({gating} gating metrics tested)", soft_wrap=True)


def write_plots(report: MonitorReport, path: Path) -> list[Path]:
    """Scores over time at ``path``; cost and turns over time beside it.

    Both files are written before either is renamed into place, so a folder that cannot
    take them leaves the old pair as it was."""
    from judgekit._util.atomic_files import atomic_files

    spend = path.with_name(f"{path.stem}.cost_turns{path.suffix or '.png'}")
    with atomic_files() as files:
        files.binary(path).write(report.plots.scores)
        files.binary(spend).write(report.plots.spend)
    return [path, spend]


@click.command("monitor")
@rubric_refs_option
@labels_beside_rubrics_option
@since_option
@by_option
@click.option(
    "--alpha",
    default=0.01,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
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
    type=click.FloatRange(min=0),
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
@click.option(
    "--runs",
    "runs_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --recheck: the labelled runs (default: the runs recorded in the store).",
)
@click.option(
    "--tasks",
    "tasks_path",
    type=click.Path(path_type=Path),
    help="With --recheck: the task suite, for rubrics that show the reference answer.",
)
@click.option("--base-url", help="With --recheck: an OpenAI- or Anthropic-compatible server.")
@click.option("--api-key-env", help="With --recheck: the environment variable holding the API key.")
@click.option(
    "--concurrency",
    default=8,
    show_default=True,
    type=click.IntRange(min=1),
    help="With --recheck: requests in flight at once.",
)
@click.option(
    "--drift-alpha",
    default=0.05,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    help="With --recheck: the level of the one-sided test of a kappa drop.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the table.")
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
    runs_files: tuple[Path, ...],
    tasks_path: Path | None,
    base_url: str | None,
    api_key_env: str | None,
    concurrency: int,
    drift_alpha: float,
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

    \b
    Example:
      judgekit monitor --rubric goal_completion --since 30d --plot scores.png
      OPENAI_API_KEY=... judgekit monitor --recheck goal_completion
    """
    from judgekit.monitoring.monitor import build_monitor_report
    from judgekit.store import open_store  # SQLAlchemy loads only when the store is read

    if recheck_ref is not None:
        from judgekit.judging.api_key import api_key_from_env
        from judgekit.monitoring.recheck_run import run_recheck

        with open_store() as store:
            result = run_recheck(
                store,
                recheck_ref,
                labels_dir=labels_dir,
                runs_files=runs_files,
                tasks_path=tasks_path,
                base_url=base_url,
                api_key=api_key_from_env(api_key_env),
                concurrency=concurrency,
                alpha=drift_alpha,
                as_json=as_json,
            )
        if result.drifted:
            sys.exit(EXIT_ALERT)
        return
    if runs_files or tasks_path is not None:
        from judgekit.errors import ConfigError

        # Files named on the command line are read, or refused: never silently left out.
        raise ConfigError(
            "--runs and --tasks go with --recheck RUBRIC (the labelled runs to judge again); "
            "the monitor itself reads the store"
        )

    start = parse_since(since)
    policy = AlertPolicy(
        alpha=alpha, baseline_windows=baseline_windows, min_n=min_n, mean_tolerance=cost_tolerance
    )
    rubrics = rubrics_from(rubric_refs)
    with open_store() as store:
        report = build_monitor_report(
            store, rubrics=rubrics, labels_dir=labels_dir, since=start, by=by, policy=policy
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
        print_monitor_report(report, console)
        for path in written:
            console.print(f"wrote {visible_markup(str(path))}", soft_wrap=True)
    if report.alerts:
        sys.exit(EXIT_ALERT)
