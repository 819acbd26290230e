"""The selective-judging section of the calibration report, as text and as Markdown: for
each alpha, the threshold chosen, the coverage, the agreement on the kept verdicts and the
agreement guaranteed at delta."""

from __future__ import annotations

from judgekit._util.number_format import DASH, rate, setting, statistic, threshold
from judgekit.calibration.report import CalibrationReport
from judgekit.calibration.selective import SelectiveFigures, SelectiveRow, guarantee_sentence

__all__ = ["selective_lines", "selective_markdown"]

_HEADERS = ("α", "threshold", "coverage", "agreement on kept", "guaranteed agreement")


def _cells(row: SelectiveRow) -> tuple[str, ...]:
    if row.threshold is None:
        return (setting(row.alpha), "none", rate(0.0), DASH, DASH)
    return (
        setting(row.alpha),
        threshold(row.threshold),
        rate(row.coverage),
        statistic(row.agreement_on_kept),
        statistic(row.guaranteed_agreement),
    )


def _heading(figures: SelectiveFigures) -> str:
    probability = setting(round(1 - figures.delta, 12))
    return (
        f"selective judging: coverage at which agreement on kept verdicts ≥ 1 − α holds with "
        f"probability {probability} (δ = {setting(figures.delta)}; {figures.n_with_confidence} "
        f"of {figures.n} compared runs have a confidence)"
    )


def selective_lines(report: CalibrationReport) -> list[str]:
    """The section for a terminal (nothing when no verdict has a confidence)."""
    figures = report.selective
    if figures is None:
        return []
    rows = [_HEADERS, *(_cells(row) for row in figures.rows)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADERS))]
    lines = [_heading(figures)]
    lines += [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]
    if figures.policy is not None:
        lines.append(
            f"  policy: at α = {setting(figures.policy.alpha)}: "
            f"{guarantee_sentence(figures.policy)}"
        )
    return lines


def selective_markdown(report: CalibrationReport) -> list[str]:
    """The section as a Markdown table (nothing when no verdict has a confidence)."""
    figures = report.selective
    if figures is None:
        return []
    lines = [
        "",
        f"**Selective judging** — {_heading(figures).removeprefix('selective judging: ')}",
        "",
        "| " + " | ".join(_HEADERS) + " |",
        "|" + " --- |" * len(_HEADERS),
        *("| " + " | ".join(_cells(row)) + " |" for row in figures.rows),
    ]
    if figures.policy is not None:
        lines += [
            "",
            f"Policy: at α = {setting(figures.policy.alpha)}: "
            f"{guarantee_sentence(figures.policy)}.",
        ]
    return lines
