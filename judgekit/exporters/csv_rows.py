r"""Verdicts and labels as CSV: one row each, under the header :data:`COLUMNS`.

Agent and model text stays text in a spreadsheet (OWASP's CSV injection):

* A cell holding a comma, a semicolon, a tab, a quote, a carriage return or a line feed is
  quoted (quotes doubled). csv's writer with ``lineterminator="\n"`` left a lone CR
  unquoted, and a reader then started a new row at it.
* Wherever a spreadsheet may start a cell — the start of the text, and after a comma, a
  semicolon, a tab or a line end inside it, since a spreadsheet set to split on ``;`` (the
  list separator of many locales) splits a comma file's lines there, quotes or not — a
  formula start (``=``, ``+``, ``-``, ``@``, a tab, a carriage return), even behind spaces,
  invisible characters (``\u200b``, bidi controls) or quotes, gets a ``'`` before it, which a
  spreadsheet shows as text. So ``a;=1+1`` is written ``a;'=1+1``.
"""

from __future__ import annotations

import unicodedata
from typing import IO, Final

from judgekit.exporters.items import ExportItem

__all__ = ["COLUMNS", "csv_line", "csv_row", "is_linked", "neutralised", "write_csv"]

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
_FORMULA_STARTS: Final = frozenset("=+-@\t\r")
# Where a spreadsheet may start a new cell inside a cell's text (any delimiter, a line end).
_CELL_BREAKS: Final = frozenset(",;\t\r\n")
_QUOTED_IF_HELD: Final = frozenset(',;\t"\r\n')
_INVISIBLE: Final = ("Zs", "Cf", "Cc")  # space separators, format and control characters


def neutralised(text: str | None) -> str:
    r"""``text`` as a cell no spreadsheet runs (empty for None).

    >>> neutralised('=HYPERLINK("http://x")'), neutralised("fine"), neutralised(None)
    ('\'=HYPERLINK("http://x")', 'fine', '')
    >>> neutralised("a;=1+1"), neutralised(" =1+1"), neutralised("\u200b@SUM(A1)")
    ("a;'=1+1", "' =1+1", "'\u200b@SUM(A1)")
    """
    if text is None:
        return ""
    out: list[str] = []
    at_cell_start = True
    for index, char in enumerate(text):
        if at_cell_start and _formula_follows(text, index):
            out.append("'")
        out.append(char)
        at_cell_start = char in _CELL_BREAKS
    return "".join(out)


def _formula_follows(text: str, index: int) -> bool:
    """Whether a formula start comes at ``index``, after any spaces, invisible characters
    (Unicode's space separators, format and control characters but tab and CR, which are
    formula starts themselves) and quotes (a reader splitting on ``;`` takes one at a cell
    start for the opening quote of ``"=1+1"``)."""
    for char in text[index:]:
        if char in _FORMULA_STARTS:
            return True
        if not (char == '"' or char.isspace() or unicodedata.category(char) in _INVISIBLE):
            return False
        if char in _CELL_BREAKS:
            return False  # a line feed: the next cell start is checked on its own
    return False


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


def csv_line(cells: list[str]) -> str:
    """One CSV line (ending ``\n``): a cell holding a delimiter, a quote or a line end is
    quoted, its quotes doubled, as every CSV reader reads it back."""
    return ",".join(_quoted(cell) for cell in cells) + "\n"


def _quoted(cell: str) -> str:
    if _QUOTED_IF_HELD.isdisjoint(cell):
        return cell
    return '"' + cell.replace('"', '""') + '"'


def write_csv(items: list[ExportItem], out: IO[str]) -> None:
    """The header, then one row per item."""
    out.write(csv_line(list(COLUMNS)))
    for item in items:
        out.write(csv_line(csv_row(item)))
