"""Verdicts and labels as CSV: one row each, under the header :data:`COLUMNS`.

A text cell that a spreadsheet would run as a formula (starting ``=``, ``+``, ``-``, ``@``,
a tab or a carriage return) gets a leading ``'``, so agent and model text stays text.
"""

from __future__ import annotations

import csv
from typing import IO, Final

from judgekit.exporters.items import ExportItem

__all__ = ["COLUMNS", "csv_row", "is_linked", "neutralised", "write_csv"]

COLUMNS: Final = (
    "kind",
    "run_id",
    "rubric_id",
    "rubric_version",
    "by",
    "status",
    "score",
    "reason",
    "confidence",
    "at",
    "trace_id",
    "span_id",
)
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralised(text: str | None) -> str:
    """``text`` as a cell no spreadsheet runs (empty for None).

    >>> neutralised('=HYPERLINK("http://x")'), neutralised("fine"), neutralised(None)
    ('\\'=HYPERLINK("http://x")', 'fine', '')
    """
    if text is None:
        return ""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def csv_row(item: ExportItem) -> list[str]:
    """The cells of one verdict or label, in :data:`COLUMNS` order."""
    # A whole number (likert) is a number, negative ones included; every text is neutralised.
    score = str(item.score) if isinstance(item.score, int) else neutralised(item.score)
    trace = item.trace
    return [
        item.kind,
        neutralised(item.run_id),
        neutralised(item.rubric_id),
        neutralised(item.rubric_version),
        neutralised(item.source),
        item.status,
        score,
        neutralised(item.reason),
        repr(item.confidence) if item.confidence is not None else "",
        item.at.isoformat(),
        neutralised(trace.trace_id if trace is not None else None),
        neutralised(trace.span_id if trace is not None else None),
    ]


def is_linked(item: ExportItem) -> bool:
    """Whether the row carries the run's trace id."""
    return item.trace is not None


def write_csv(items: list[ExportItem], out: IO[str]) -> None:
    """The header, then one row per item."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for item in items:
        writer.writerow(csv_row(item))
