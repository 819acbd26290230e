"""The confidence-calibration section of the calibration report, as text and as Markdown:
ECE and Brier with their intervals, the reliability curve's non-empty bins, and the same
figures by the score the judge gave; one line saying why when no verdict has a confidence."""

from __future__ import annotations

from judgekit._util.number_format import bracketed_interval, confidence, setting, statistic
from judgekit._util.terminal_text import visible
from judgekit.calibration.confidence_calibration import ConfidenceCalibration, ConfidenceFigures
from judgekit.calibration.report import CalibrationReport
from judgekit.stats.reliability import CalibrationErrors, ReliabilityBin

__all__ = ["confidence_lines", "confidence_markdown"]

_HEADERS = ("bin", "verdicts", "mean confidence", "accuracy")


def _errors(errors: CalibrationErrors) -> str:
    """``ECE 0.083 [0.051, 0.120], Brier 0.142 [0.118, 0.167]``."""
    return (
        f"ECE {statistic(errors.ece)} {bracketed_interval(*errors.ece_ci)}, "
        f"Brier {statistic(errors.brier)} {bracketed_interval(*errors.brier_ci)}"
    )


def _heading(figures: ConfidenceCalibration, errors: CalibrationErrors) -> str:
    return (
        f"{_errors(errors)} on the {figures.n_with_confidence} of {figures.n} compared runs "
        f"whose verdict has a confidence ({figures.n_bins} equal-width bins; "
        f"{confidence(figures.confidence)} bootstrap intervals, {figures.n_resamples} "
        f"resamples, seed {figures.seed})"
    )


def _bin(row: ReliabilityBin) -> str:
    """``[0, 0.1]`` for the first bin (it holds 0), ``(0.1, 0.2]`` for the others."""
    opening = "[" if row.lower == 0 else "("
    return f"{opening}{setting(round(row.lower, 12))}, {setting(round(row.upper, 12))}]"


def _cells(row: ReliabilityBin) -> tuple[str, ...]:
    return (_bin(row), str(row.count), statistic(row.mean_confidence), statistic(row.accuracy))


def _by_score(score: str, figures: ConfidenceFigures) -> str:
    if figures.errors is None:
        return visible(f"gave {score}: {figures.absent}", one_line=True)
    return visible(
        f"gave {score}: {_errors(figures.errors)} on {figures.n} verdicts", one_line=True
    )


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def confidence_lines(report: CalibrationReport) -> list[str]:
    """The section for a terminal."""
    figures = report.confidence_calibration
    if figures is None:
        return []
    errors = figures.overall.errors
    if errors is None:
        return [f"confidence: {figures.overall.absent}"]
    rows = [_HEADERS, *(_cells(b) for b in errors.bins if b.count)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADERS))]
    lines = [f"confidence: {_heading(figures, errors)}"]
    lines += [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]
    lines += [f"  {_by_score(score, f)}" for score, f in figures.by_score.items()]
    return lines


def confidence_markdown(report: CalibrationReport) -> list[str]:
    """The section as Markdown: a sentence, the curve as a table, a line per score."""
    figures = report.confidence_calibration
    if figures is None:
        return []
    errors = figures.overall.errors
    if errors is None:
        return ["", f"**Confidence calibration** — {figures.overall.absent}."]
    return [
        "",
        f"**Confidence calibration** — {_heading(figures, errors)}.",
        "",
        "| " + " | ".join(_HEADERS) + " |",
        "|" + " --- |" * len(_HEADERS),
        *("| " + " | ".join(_cells(b)) + " |" for b in errors.bins if b.count),
        "",
        *(f"- {_md_cell(_by_score(s, f))}" for s, f in figures.by_score.items()),
    ]
