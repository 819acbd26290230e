"""The per-class scores of a choices or pairwise scale, as text and as Markdown: a table of
each class's precision, recall, F1, support (human labels) and how often the judge chose it,
the macro averages under it, and one line per class saying why a figure is undefined."""

from __future__ import annotations

from judgekit._util.number_format import statistic
from judgekit._util.terminal_text import visible
from judgekit.calibration.report import CalibrationReport
from judgekit.calibration.scale_errors import ChoiceScores

__all__ = ["class_score_lines", "class_score_markdown"]

_HEADERS = ("class", "precision", "recall", "F1", "support", "judged")
_HEADING = "per-class scores (human label = truth, judge's choice = prediction)"
_MACRO_NOTE = "macro averages leave the undefined figures out (not counted as 0)"


def _scores(report: CalibrationReport) -> ChoiceScores | None:
    scores = report.scale_errors
    return scores if isinstance(scores, ChoiceScores) else None


def _rows(scores: ChoiceScores) -> list[tuple[str, ...]]:
    """The cells of each class's row (its name as the rubric spells it) and of the macro row."""
    rows: list[tuple[str, ...]] = [
        (
            name,
            statistic(figures.precision),
            statistic(figures.recall),
            statistic(figures.f1),
            str(figures.support),
            str(figures.predicted),
        )
        for name, figures in scores.per_class.items()
    ]
    rows.append(
        (
            "macro",
            statistic(scores.macro_precision),
            statistic(scores.macro_recall),
            statistic(scores.macro_f1),
            "",
            "",
        )
    )
    return rows


def _reasons(scores: ChoiceScores) -> list[str]:
    """``class: why`` for each class with an undefined figure, then how the macro treats it."""
    reasons = [
        f"{name}: {reason}"
        for name, figures in scores.per_class.items()
        if (reason := figures.undefined_reason()) is not None
    ]
    return [*reasons, _MACRO_NOTE] if reasons else []


def class_score_lines(report: CalibrationReport) -> list[str]:
    """The table for a terminal (nothing on a binary or Likert scale)."""
    scores = _scores(report)
    if scores is None:
        return []
    table = [_HEADERS, *((_text(name), *cells) for name, *cells in _rows(scores))]
    widths = [max(len(row[i]) for row in table) for i in range(len(_HEADERS))]
    lines = [f"{_HEADING}:"]
    for row in table:
        name, *figures = row
        cells = [name.ljust(widths[0])] + [
            cell.rjust(width) for cell, width in zip(figures, widths[1:], strict=True)
        ]
        lines.append(("  " + "  ".join(cells)).rstrip())
    lines += [f"  {_text(reason)}" for reason in _reasons(scores)]
    return lines


def _text(text: str) -> str:
    return visible(text, one_line=True)


def _md_cell(text: str) -> str:
    return visible(text.replace("|", "\\|"), one_line=True)


def class_score_markdown(report: CalibrationReport) -> list[str]:
    """The table as Markdown, led by an empty line (nothing on a binary or Likert scale)."""
    scores = _scores(report)
    if scores is None:
        return []
    heading = _HEADING[0].upper() + _HEADING[1:]
    lines = [
        "",
        f"**{heading}**",
        "",
        "| " + " | ".join(_HEADERS) + " |",
        "| --- |" + " ---: |" * (len(_HEADERS) - 1),
    ]
    for name, *figures in _rows(scores):
        lines.append("| " + " | ".join([_md_cell(name), *figures]) + " |")
    reasons = _reasons(scores)
    if reasons:
        lines += ["", *(f"- {_md_cell(reason)}" for reason in reasons)]
    return lines
