"""The reliability diagram of the judge's confidence as a PNG (``judgekit calibrate
--plot-reliability``): for each equal-width bin of confidence that holds verdicts, a bar as
high as the share of them that agreed with the humans, the mean confidence in it marked, the
number of verdicts written at its foot, and the diagonal a calibrated judge would follow; the
title gives the ECE and Brier score with their intervals.

700 × 500 px at 100 dpi, drawn on an Agg canvas like the monitor's plots; the same figures
give the same bytes.
"""

from __future__ import annotations

from matplotlib.ticker import PercentFormatter

from judgekit._util.number_format import bracketed_interval, statistic
from judgekit.calibration.confidence_calibration import NO_CONFIDENCE, ConfidenceCalibration
from judgekit.errors import CalibrationError
from judgekit.monitoring.plots import ALERT_COLOR, SERIES_COLOR, _figure, _png
from judgekit.stats.reliability import CalibrationErrors

__all__ = [
    "RELIABILITY_SIZE_PX",
    "draw_reliability",
    "plot_reliability",
]

RELIABILITY_SIZE_PX = (700, 500)


def plot_reliability(errors: CalibrationErrors, *, title: str) -> bytes:
    """The diagram of the module for one set of figures."""
    figure = _figure(*RELIABILITY_SIZE_PX)
    ax = figure.subplots()
    ax.plot([0, 1], [0, 1], linestyle="--", color="#888888", label="calibrated")
    filled = [b for b in errors.bins if b.count]
    centres = [(b.lower + b.upper) / 2 for b in filled]
    accuracy = [b.accuracy or 0.0 for b in filled]  # a bin holding verdicts has both
    confidence = [b.mean_confidence or 0.0 for b in filled]
    ax.bar(
        centres,
        accuracy,
        width=[b.upper - b.lower for b in filled],
        color=SERIES_COLOR,
        alpha=0.6,
        edgecolor="white",
        label="share agreeing with the humans",
    )
    ax.scatter(
        confidence,
        accuracy,
        color=ALERT_COLOR,
        zorder=3,
        label="mean confidence in the bin",
    )
    for b, x in zip(filled, centres, strict=True):
        ax.annotate(
            str(b.count),
            (x, 0.0),
            textcoords="offset points",
            xytext=(0, 4),
            ha="center",
            fontsize=8,
        )
    ax.set_xlim(0, 1.02)  # a point at confidence 1 shows whole
    ax.set_ylim(0, 1.08)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("the judge's confidence (the verdicts in each bin at the foot of its bar)")
    ax.set_ylabel("verdicts agreeing with the humans")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    figures = (
        f"ECE {statistic(errors.ece)} {bracketed_interval(*errors.ece_ci)}, "
        f"Brier {statistic(errors.brier)} {bracketed_interval(*errors.brier_ci)}"
    )
    ax.set_title(f"{title}\n{figures}", fontsize=11)
    return _png(figure)


def draw_reliability(figures: ConfidenceCalibration | None, *, title: str) -> bytes:
    """The diagram of the overall figures; a :class:`CalibrationError` when no verdict has
    a confidence."""
    errors = None if figures is None else figures.overall.errors
    if errors is None:
        raise CalibrationError(f"no reliability diagram to draw: {NO_CONFIDENCE}")
    return plot_reliability(errors, title=title)
