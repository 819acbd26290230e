"""The coverage curve of selective judging as a PNG (``judgekit calibrate --plot-coverage``):
the share of verdicts a confidence threshold keeps against the agreement guaranteed on them,
one point per threshold, with the threshold chosen at each alpha of the table marked.

700 × 500 px at 100 dpi, drawn on an Agg canvas like the monitor's plots; the same figures
give the same bytes.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.ticker import PercentFormatter

from judgekit._util.number_format import setting, threshold
from judgekit.calibration.selective import SelectiveFigures
from judgekit.errors import CalibrationError
from judgekit.monitoring.plots import ALERT_COLOR, SERIES_COLOR, _figure, _png, write_png

__all__ = ["COVERAGE_SIZE_PX", "plot_coverage", "write_coverage_plot"]

COVERAGE_SIZE_PX = (700, 500)
NO_CONFIDENCE = (
    "no compared verdict has a confidence, so there is no coverage curve to draw: judge with "
    "samples > 1 (judge: {samples: 5}) or judge.confidence: logprobs"
)


def plot_coverage(figures: SelectiveFigures, *, title: str) -> bytes:
    """Coverage (x) against guaranteed agreement (y), a point per threshold, each labelled
    with its threshold; the alphas of the table whose threshold exists are marked in red."""
    figure = _figure(*COVERAGE_SIZE_PX)
    ax = figure.subplots()
    xs = [point.coverage for point in figures.curve]
    ys = [point.guaranteed_agreement for point in figures.curve]
    ax.plot(xs, ys, marker="o", color=SERIES_COLOR, label="guaranteed agreement")
    for point in figures.curve:
        ax.annotate(
            threshold(point.threshold),
            (point.coverage, point.guaranteed_agreement),
            textcoords="offset points",
            xytext=(4, 4),
            fontsize=8,
        )
    for row in figures.rows:
        if row.threshold is not None and row.guaranteed_agreement is not None:
            ax.scatter([row.coverage], [1 - row.alpha], color=ALERT_COLOR, marker="_", s=200)
            ax.annotate(
                f"α {setting(row.alpha)}",
                (row.coverage, 1 - row.alpha),
                textcoords="offset points",
                xytext=(6, -12),
                fontsize=8,
                color=ALERT_COLOR,
            )
    ax.set_xlim(0, 1.05)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("coverage (verdicts kept)")
    ax.set_ylabel(f"agreement guaranteed with probability {setting(round(1 - figures.delta, 12))}")
    ax.grid(alpha=0.3)
    ax.set_title(title, fontsize=12)
    return _png(figure)


def write_coverage_plot(figures: SelectiveFigures | None, path: Path, *, title: str) -> None:
    """Draw the curve and write it atomically; a :class:`CalibrationError` when no verdict
    has a confidence."""
    if figures is None or not figures.curve:
        raise CalibrationError(NO_CONFIDENCE)
    write_png(path, plot_coverage(figures, title=title))
