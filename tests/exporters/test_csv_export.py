"""Verdicts as CSV: stable columns, read back by the csv module, and no cell a spreadsheet
would run as a formula."""

from __future__ import annotations

import csv
from pathlib import Path

from judgekit.exporters.csv_rows import COLUMNS, neutralised
from tests.exporters.world import OTEL_SPAN, OTEL_TRACE, export_verdicts


def test_one_row_a_verdict_under_the_documented_columns(tmp_path: Path) -> None:
    result, out = export_verdicts(tmp_path, "csv", "verdicts.csv")
    assert result.exit_code == 0, result.output
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert (
        tuple(rows[0])
        == COLUMNS
        == (
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
    )
    assert rows[1] == [
        "verdict",
        "shop/otel",
        "goal_completion",
        "3f2a9c",
        "openai/gpt-4o-mini",
        "scored",
        "pass",
        "The refund of $40 was issued, as asked.",
        "0.9",
        "2026-11-29T10:02:11.123456+00:00",
        OTEL_TRACE,
        OTEL_SPAN,
    ]
    # The judge's reason quoted an agent's formula: it stays text.
    assert rows[2][7] == '\'=HYPERLINK("http://evil")'
    # Unscored and abstained: their status, and no score.
    assert [row[5:7] for row in rows[3:]] == [["unscored", ""], ["abstained", ""]]
    assert rows[4][8] == "0.4"
    assert [row[10:] for row in rows[3:]] == [["", ""], ["", ""]]


def test_every_formula_start_is_neutralised() -> None:
    starts = ["=1+1", "+1", "-1", "@SUM(A1)", "\t1", "\r1"]
    assert [neutralised(text) for text in starts] == ["'" + text for text in starts]
    # A tab or a CR starts a cell of a reader splitting there: what follows is checked too.
    assert [neutralised(text) for text in ("\t=1", "\r=1")] == ["'\t'=1", "'\r'=1"]
    assert neutralised("a=1") == "a=1"
    assert neutralised("") == ""
