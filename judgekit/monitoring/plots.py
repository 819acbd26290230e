"""The monitor's plots as PNG bytes: metric series, a judge's confusion matrix, cost and turns.

Drawn with matplotlib's object API on an Agg canvas (never pyplot): no global state, no
display, safe to call from several threads. Sizes are fixed so reports lay out predictably:

* :func:`plot_series` and :func:`plot_cost_turns`: 1000 px wide, ``80 + 260 * panels`` px
  high (:func:`series_height_px`), at 100 dpi;
* :func:`plot_confusion`: 500 × 450 px.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter, date2num
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import FuncFormatter, MaxNLocator, PercentFormatter

from judgekit._util.atomic_files import write_bytes_atomically
from judgekit._util.number_format import axis_dollars, p_equation
from judgekit.monitoring.model import Point, Series

__all__ = [
    "ALERT_COLOR",
    "CONFUSION_SIZE_PX",
    "DPI",
    "INFORMATIONAL_COLOR",
    "MARGIN_PX",
    "PANEL_HEIGHT_PX",
    "SERIES_COLOR",
    "WIDTH_PX",
    "plot_confusion",
    "plot_cost_turns",
    "plot_series",
    "series_figure",
    "series_height_px",
    "write_png",
]

DPI = 100
WIDTH_PX = 1000
PANEL_HEIGHT_PX = 260
MARGIN_PX = 80  # the figure title and the room below the last panel
CONFUSION_SIZE_PX = (500, 450)

# The alert colour is used for alerts only, so a test can tell an alert from its pixels.
ALERT_COLOR = "#d62728"
SERIES_COLOR = "#1f77b4"
INFORMATIONAL_COLOR = "#7f7f7f"
BASELINE_COLOR = "#444444"
INFORMATIONAL_SUFFIX = " (informational, never alerts)"

XValue = float  # a date as a matplotlib date number, or a batch's position

_TITLE_SIZE = 11  # points, of a panel's title and note
# What a panel's title may span: the figure less the y tick labels at its left and a margin.
_TITLE_ROOM_PX = WIDTH_PX - 100
_NOTE_LINES = 2


def series_height_px(panels: int) -> int:
    """The height of a series figure: ``80 + 260 * panels`` px (at least one panel)."""
    return MARGIN_PX + PANEL_HEIGHT_PX * max(1, panels)


def plot_series(series: Sequence[Series], *, title: str | None = None) -> bytes:
    """One panel per series, stacked, as a PNG of ``1000 × series_height_px(len(series))``:
    :func:`series_figure` drawn."""
    return _png(series_figure(series, title=title))


def series_figure(series: Sequence[Series], *, title: str | None = None) -> Figure:
    """The figure :func:`plot_series` draws, one panel per series.

    Each panel shows the value per window as a line with markers and its 95% interval as
    a band; windows without a value are gaps. Daily windows are placed on a date axis,
    batches at equal steps labelled with their names. Proportions use a 0–100% axis. An
    alert marks the latest window in red, with the baseline rate as a dashed line and its
    p-value; informational series are grey and never show an alert. A series without a
    single value gets a "no data" panel, and so does an empty ``series``. Titles and notes
    are fitted to the panel's width (a note in up to two lines), never cut at the edge.
    """
    figure = _figure(WIDTH_PX, series_height_px(len(series)))
    panels: list[Series | None] = [*series] or [None]
    axes = figure.subplots(len(panels), 1, squeeze=False)[:, 0]
    width = _text_width(figure)
    for ax, one in zip(axes, panels, strict=True):
        _draw_panel(ax, one, fallback_title="no series", width=width)
    if title:
        figure.suptitle(title, fontsize=13)
    return figure


def plot_cost_turns(cost: Series | None, turns: Series | None) -> bytes:
    """Cost per run (USD) and turns per run over time: two panels, the mean per window with
    its interval band, as a PNG of ``1000 × series_height_px(2)`` (600 px). A missing
    series gets a "no data" panel."""
    figure = _figure(WIDTH_PX, series_height_px(2))
    top, bottom = figure.subplots(2, 1, squeeze=False)[:, 0]
    width = _text_width(figure)
    _draw_panel(top, cost, fallback_title="cost per run (USD)", width=width, y_format=axis_dollars)
    _draw_panel(bottom, turns, fallback_title="turns per run", width=width)
    return _png(figure)


def plot_confusion(confusion: Mapping[str, Mapping[str, int]], *, title: str) -> bytes:
    """A judge's confusion matrix as a 500 × 450 px PNG.

    ``confusion`` is :attr:`CalibrationReport.confusion`: human label → judge verdict →
    count. Rows are the human labels, columns the judge's verdicts (every verdict met in
    any row, in order of appearance), each cell shows its count.
    """
    figure = _figure(*CONFUSION_SIZE_PX)
    ax = figure.subplots()
    rows = list(confusion)
    columns = list(dict.fromkeys(col for row in confusion.values() for col in row))
    if not rows or not columns:
        _no_data(ax)
    else:
        counts = [[confusion[row].get(col, 0) for col in columns] for row in rows]
        top = max(max(line) for line in counts)
        ax.imshow(counts, cmap="Blues", vmin=0, vmax=max(top, 1), aspect="auto")
        for i, line in enumerate(counts):
            for j, count in enumerate(line):
                dark = count > top / 2
                ax.text(
                    j,
                    i,
                    str(count),
                    ha="center",
                    va="center",
                    fontsize=14,
                    color="white" if dark else "black",
                )
        ax.set_xticks(range(len(columns)), labels=columns)
        ax.set_yticks(range(len(rows)), labels=rows)
        ax.xaxis.set_ticks_position("top")
        ax.xaxis.set_label_position("top")
        ax.set_xlabel("judge")
        ax.set_ylabel("human")
    ax.set_title(title, fontsize=12)
    return _png(figure)


# Money and effort per run are drawn apart from the scores: another scale, another question.
SPEND_METRICS = ("cost_usd", "turns")


@dataclass(frozen=True)
class MonitorPlots:
    """The monitor's two figures as PNG bytes."""

    scores: bytes  # every score series, one panel each
    spend: bytes  # cost and turns per run


def draw_monitor_plots(series: Sequence[Series]) -> MonitorPlots:
    """Scores over time, and cost and turns over time, of the monitor's series."""
    by_metric = {one.metric: one for one in series}
    scores = [one for one in series if one.metric not in SPEND_METRICS]
    return MonitorPlots(
        scores=plot_series(scores, title="Scores over time"),
        spend=plot_cost_turns(by_metric.get("cost_usd"), by_metric.get("turns")),
    )


def write_png(path: Path, png: bytes) -> None:
    """Write ``png`` to ``path`` so that it appears whole or not at all."""
    write_bytes_atomically(path, png)


# --- drawing -----------------------------------------------------------------------------


def _figure(width_px: int, height_px: int) -> Figure:
    figure = Figure(figsize=(width_px / DPI, height_px / DPI), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    # No bbox_inches="tight": it would change the documented size. No metadata: the same
    # figure gives the same bytes.
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _no_data(ax: Axes) -> None:
    ax.text(0.5, 0.5, "no data", ha="center", va="center", fontsize=14, color="#666666")
    ax.set_xticks([])
    ax.set_yticks([])


def _panel_title(series: Series, width: Callable[[str], float]) -> str:
    """The title on one line and the note under it on at most two, each as wide as the
    panel at most (``width`` measures a line in pixels): what does not fit ends in " …"."""
    title = series.title
    if series.role == "informational":
        title += INFORMATIONAL_SUFFIX
    lines = _fitted(title, 1, width)
    if series.note:
        lines += _fitted(series.note, _NOTE_LINES, width)
    return "\n".join(lines)


def _fitted(text: str, most: int, width: Callable[[str], float]) -> list[str]:
    """``text`` wrapped at spaces into at most ``most`` lines of the title's room."""
    words, lines = text.split(), list[str]()
    while words and len(lines) < most:
        line = words.pop(0)
        while words and width(f"{line} {words[0]}") <= _TITLE_ROOM_PX:
            line += " " + words.pop(0)
        lines.append(line)
    if words:
        lines[-1] += " …"
    # A line still too wide (a long path, or the ellipsis added) loses words, then letters.
    for i, line in enumerate(lines):
        while width(line) > _TITLE_ROOM_PX and len(line) > 2:
            kept = line.removesuffix(" …").removesuffix("…")
            kept = kept.rsplit(" ", 1)[0] if " " in kept else kept[:-1]
            line = kept + (" …" if " " in line else "…")
        lines[i] = line
    return lines


def _text_width(figure: Figure) -> Callable[[str], float]:
    """Measures a line of a panel's title in pixels, with the figure's own renderer."""
    canvas = figure.canvas
    assert isinstance(canvas, FigureCanvasAgg)
    renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]
    font = FontProperties(size=_TITLE_SIZE)

    def width(line: str) -> float:
        return float(renderer.get_text_width_height_descent(line, font, ismath=False)[0])

    return width


def _draw_panel(
    ax: Axes,
    series: Series | None,
    *,
    fallback_title: str,
    width: Callable[[str], float],
    y_format: Callable[[float, float | None], str] | None = None,
) -> None:
    if series is None:
        ax.set_title(fallback_title, fontsize=_TITLE_SIZE, loc="left")
        _no_data(ax)
        return
    ax.set_title(
        _panel_title(series, width),
        fontsize=_TITLE_SIZE,
        loc="left",
    )
    if all(point.value is None for point in series.points):
        _no_data(ax)
        return
    xs = _x_axis(ax, series.points)
    informational = series.role == "informational"
    color = INFORMATIONAL_COLOR if informational else SERIES_COLOR
    values = [_nan(p.value) for p in series.points]
    lows = [_nan(p.low) for p in series.points]
    highs = [_nan(p.high) for p in series.points]
    # NaN breaks both the line and the band: a window without a value is a gap.
    ax.fill_between(xs, lows, highs, color=color, alpha=0.2, linewidth=0)
    ax.plot(xs, values, color=color, marker="o", markersize=4, linewidth=1.5)
    _isolated_intervals(ax, xs, values, lows, highs, color)
    if series.kind == "proportion":
        ax.set_ylim(-0.03, 1.03)  # a little room so markers at 0% and 100% are whole
        ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1])
        ax.yaxis.set_major_formatter(PercentFormatter(xmax=1, decimals=0))
    elif y_format is not None:
        ax.yaxis.set_major_formatter(FuncFormatter(y_format))
    ax.grid(True, color="#e5e5e5", linewidth=0.8)
    if series.alert is not None and not informational:
        _draw_alert(ax, series, xs)


def _isolated_intervals(
    ax: Axes,
    xs: list[XValue],
    values: list[float],
    lows: list[float],
    highs: list[float],
    color: str,
) -> None:
    """A band needs two neighbouring windows; a window between gaps gets an error bar."""
    for i, value in enumerate(values):
        before = i > 0 and not math.isnan(values[i - 1])
        after = i + 1 < len(values) and not math.isnan(values[i + 1])
        if math.isnan(value) or before or after or math.isnan(lows[i]) or math.isnan(highs[i]):
            continue
        ax.vlines(xs[i], lows[i], highs[i], color=color, alpha=0.5, linewidth=3)


def _draw_alert(ax: Axes, series: Series, xs: list[XValue]) -> None:
    alert = series.alert
    assert alert is not None
    index = _latest_index(series.points, alert.latest)
    latest = alert.latest.value
    if alert.baseline.value is not None:
        ax.axhline(
            alert.baseline.value, color=BASELINE_COLOR, linestyle="--", linewidth=1.2, zorder=1
        )
        ax.annotate(
            "baseline",
            xy=(0, alert.baseline.value),
            xycoords=("axes fraction", "data"),
            xytext=(4, 3),
            textcoords="offset points",
            color=BASELINE_COLOR,
            fontsize=9,
        )
    if latest is None:
        return
    ax.plot(
        [xs[index]],
        [latest],
        marker="o",
        markersize=11,
        color=ALERT_COLOR,
        linestyle="none",
        zorder=5,
    )
    # The label goes on the side of the marker away from the baseline (below a drop), where
    # the line it departed from is not, unless that side has no room left in the panel.
    low, high = ax.get_ylim()
    base = alert.baseline.value
    below = base is not None and latest < base and latest - low > 0.2 * (high - low)
    ax.annotate(
        f"alert: {p_equation(alert.p_value)}",
        xy=(xs[index], latest),
        xytext=(-12, -12 if below else 12),
        textcoords="offset points",
        ha="right",
        va="top" if below else "baseline",
        color=ALERT_COLOR,
        fontsize=10,
        fontweight="bold",
    )


def _latest_index(points: Sequence[Point], latest: Point) -> int:
    """Where the alert's window is among the points: matched by label, else the last one."""
    for i in range(len(points) - 1, -1, -1):
        if points[i].label == latest.label:
            return i
    return len(points) - 1


def _x_axis(ax: Axes, points: Sequence[Point]) -> list[XValue]:
    """Dates for daily windows (labels that are the window's date), else batch positions
    with the batches' labels as ticks."""
    if all(_is_day(p) for p in points):
        # matplotlib.dates has no type hints.
        locator = AutoDateLocator(minticks=3, maxticks=10)  # type: ignore[no-untyped-call]
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
        days = [float(date2num(p.at)) for p in points]  # type: ignore[no-untyped-call]
        # Half a day either side, and at least three days in all, so the ticks fall on
        # days (a single day would otherwise sit in years of axis, or among hours).
        widen = max(0.0, 3.0 - (max(days) - min(days) + 1.0)) / 2
        ax.set_xlim(min(days) - 0.5 - widen, max(days) + 0.5 + widen)
        return days
    labels = [p.label for p in points]

    def batch_label(x: float, _position: float | None = None) -> str:
        i = round(x)
        return labels[i] if 0 <= i < len(labels) and abs(x - i) < 1e-6 else ""

    ax.xaxis.set_major_locator(MaxNLocator(nbins=10, integer=True))
    ax.xaxis.set_major_formatter(FuncFormatter(batch_label))
    ax.set_xlim(-0.5, len(points) - 0.5)
    return [float(i) for i in range(len(points))]


def _is_day(point: Point) -> bool:
    at: datetime = point.at
    return point.label == at.date().isoformat()


def _nan(value: float | None) -> float:
    return math.nan if value is None else float(value)
