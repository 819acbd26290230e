"""The HTML report shows control and bidirectional characters inert, as the terminal does.
It HTML-escaped its text but put ESC, BEL, C1 controls and bidi overrides (U+202E shows
``evil`` as ``live``, and reorders a whole table cell) into the page raw: a run id, an
agent's answer quoted in a reason, a judge's reason, the page title. Now each shows by the
terminal's stand-in (``␛``, ``␇``, ``\\u202e``), and none of the raw characters is anywhere
in the file.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from judgekit.cli import main
from judgekit.report import ReportContent, RubricLine, render_report

# Every character that must never reach the page raw: ESC, BEL, NUL, backspace, a bare CR,
# DEL, C1 (8-bit CSI and OSC), the bidi marks, embeddings, overrides and isolates, and the
# line and paragraph separators.
RAW = (
    "\x1b\x07\x00\x08\r\x7f\x9b\x9d\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2066\u2067\u2068\u2069\u2028\u2029"
)
RUN_ID = "shop/\u202eevil\x1b[2J\x07/1"
RUN_ID_SHOWN = "shop/\\u202eevil␛[2J␇/1"
REASON = "expected order_id 'A100', got '\u2066A100\u2069\x9b2J\rPASS\x00'"
REASON_SHOWN = "expected order_id &#x27;A100&#x27;, got &#x27;\\u2066A100\\u2069\\x9b2J␍PASS␀&#x27;"


def grade_line(run_id: str, reason: str) -> str:
    grader = {"passed": False, "reason": reason}
    return json.dumps(
        {"run_id": run_id, "task_id": "refund\u202e_full", "trial": 1, "passed": False,
         "truth": grader, "path": None, "state": None, "claimed_success": False,
         "turns": 3, "cost_usd": 0.001, "stop_reason": "completed"}
    )  # fmt: skip


def assert_inert(page: str) -> None:
    found = sorted({f"U+{ord(char):04X}" for char in page if char in RAW})
    assert found == []


def test_report_shows_run_ids_reasons_and_the_title_inert(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    results = tmp_path / "results.jsonl"
    results.write_text(grade_line(RUN_ID, REASON) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        main,
        [
            "report",
            "--results",
            str(results),
            "-o",
            "r.html",
            "--title",
            "weekly\u202e\x1b]0;x\x07",
        ],
    )
    assert result.exit_code == 0, result.output
    page = Path("r.html").read_text(encoding="utf-8")
    assert_inert(page)
    assert "<title>weekly\\u202e␛]0;x␇</title>" in page
    assert (
        f"<tr><td>refund\\u202e_full</td><td>{RUN_ID_SHOWN}</td><td>truth: {REASON_SHOWN}</td></tr>"
        in page
    )
    assert "<td>refund\\u202e_full</td><td>1</td><td>0</td>" in page  # the task table


def test_judges_reasons_and_rubric_lines_are_inert() -> None:
    calibration = {
        "rubric_id": "goal\u202e_completion",
        "rubric_version": "3f2a9c",
        "model": "openai/gpt-4o-mini",
        "n": 1,
        "confusion": {"pass": {"fail": 1}},
        "disagreements": [
            {"run_id": RUN_ID, "human": "pass", "judge": "fail", "reason": "said \x1b[31mFAIL\x07"}
        ],
    }
    rubric = RubricLine("goal\u202e_completion", "3f2a9c", "draft", "no record \u2067x\u2069", None)
    page = render_report(
        ReportContent(
            title="t",
            generated_at=datetime(2026, 12, 1, tzinfo=UTC),
            store_url="sqlite:///x",
            rubrics=[rubric],
            calibrations=[calibration],
        )
    )
    assert_inert(page)
    assert (
        f"<tr><td>{RUN_ID_SHOWN}</td><td>pass</td><td>fail</td><td>said ␛[31mFAIL␇</td></tr>"
        in page
    )
    assert "<h3>goal\\u202e_completion</h3>" in page
    assert "<td>no record \\u2067x\\u2069</td>" in page
