"""The figures ``judgekit calibrate`` draws as PNG files (--plot, --plot-coverage,
--plot-reliability), and the store's record of the report, both before anything is printed."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click

from judgekit._util.atomic_files import atomic_bytes_writer
from judgekit._util.folder_lock import parent_folder_lock
from judgekit.cli.store_output import one_line
from judgekit.errors import StoreError

if TYPE_CHECKING:
    from judgekit.calibration import CalibrationReport

__all__ = [
    "plot_options",
    "record_and_plot",
    "record_calibration",
    "write_confidence_plots",
    "wrote_lines",
]

F = TypeVar("F", bound=Callable[..., Any])


def plot_options(func: F) -> F:
    """--plot, --plot-coverage and --plot-reliability."""
    options = [
        click.option(
            "--plot",
            "plot_path",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Also draw the confusion matrix (human against judge) as a PNG here.",
        ),
        click.option(
            "--plot-coverage",
            "coverage_plot",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Also draw selective judging's curve (coverage against guaranteed agreement, a "
            "point per confidence threshold) as a PNG here.",
        ),
        click.option(
            "--plot-reliability",
            "reliability_plot",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Also draw the reliability diagram of the judge's confidence (the share of "
            "verdicts agreeing with the humans per bin of confidence, ECE and Brier) as a PNG "
            "here.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _title(report: CalibrationReport) -> str:
    return f"{report.rubric_id} ({report.model}): {report.n} runs"


def write_confidence_plots(
    report: CalibrationReport, *, coverage: Path | None, reliability: Path | None
) -> None:
    """The coverage curve and the reliability diagram, when asked for; both need verdicts
    with a confidence, so neither is written when the other cannot be."""
    if coverage is None and reliability is None:
        return
    from judgekit.monitoring.coverage_plot import write_coverage_plot  # matplotlib: now
    from judgekit.monitoring.plots import write_png
    from judgekit.monitoring.reliability_plot import draw_reliability

    diagram = None
    if reliability is not None:  # drawn first: it says why not before anything is written
        diagram = draw_reliability(report.confidence_calibration, title=_title(report))
    if coverage is not None:
        write_coverage_plot(report.selective, coverage, title=_title(report))
    if reliability is not None and diagram is not None:
        write_png(reliability, diagram)


def wrote_lines(
    confusion: Path | None, coverage: Path | None, reliability: Path | None
) -> list[str]:
    """What was drawn where, for after the report."""
    drawn = [
        ("the confusion matrix", confusion),
        ("the coverage curve", coverage),
        ("the reliability diagram", reliability),
    ]
    return [f"wrote {what} to {path}" for what, path in drawn if path is not None]


def record_and_plot(report: CalibrationReport, *, record: bool, plot_path: Path | None) -> None:
    """Record the report in the store and draw its confusion matrix, before anything is
    printed."""
    with ExitStack() as outputs:
        plot: tuple[IO[bytes], bytes] | None = None
        if plot_path is not None:
            from judgekit.monitoring.plots import plot_confusion  # matplotlib: only now

            png = plot_confusion(report.confusion, title=_title(report))
            # Opened before the store records: a plot that cannot be written stops the
            # command with nothing recorded; one that can appears once the store has it.
            outputs.enter_context(parent_folder_lock(plot_path))
            plot = (outputs.enter_context(atomic_bytes_writer(plot_path)), png)
        if record:
            record_calibration(report.as_dict())
        if plot is not None:
            plot[0].write(plot[1])


def record_calibration(report: dict[str, Any]) -> None:
    """Record a calibration report in the store, before it is printed: a failure is one
    line, never a report followed by an error."""
    from judgekit.store import open_store  # SQLAlchemy loads only when the store is used

    try:
        with open_store() as store:
            store.record_calibration(report)
    except StoreError as exc:
        raise StoreError(
            f"the store could not record the calibration (--no-store skips it): {one_line(exc)}"
        ) from exc
