"""The report unfolds each failing run and each disagreement: the task, the transcript, the
answer, the graders' and the judge's reasons, folded in <details>, every value escaped
(agent text is hostile), no script; from the store by `judgekit report` (exact HTML)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.grade import Grade, GraderResult
from judgekit.formats.run import Run, ToolCall
from judgekit.graders.summary import GradeSummary
from judgekit.report import render_report
from judgekit.report.report_data import RunEvidence
from judgekit.report.run_evidence import FOLD_CHARACTERS, run_evidence
from tests.conftest import REPO
from tests.report.test_render import ALLOWED_TAGS, SIX, Tags, calibration, content

# What unfolding adds to the page's tags: no link, image or script among them.
EVIDENCE_TAGS = {"details", "summary", "code", "dl", "dt", "dd", "pre", "ol"}
SCRIPT = "<script>alert(1)</script>"
ATTRIBUTE = '"><img src=x onerror=alert(1)>'
LINK = "javascript:alert(document.cookie)"
BIDI = "\u202egnp.exe\u202c"  # shown as `exe.png` by a browser obeying the override
ESCAPES = "\x1b[2J\x07done"


def hostile_run() -> Run:
    return Run(
        run_id=f"t1/{ATTRIBUTE}",
        task_id="t1",
        input=f"Refund A100 {SCRIPT}",
        tool_calls=[
            ToolCall(name="lookup_order", args={"order_id": ATTRIBUTE}, result={"url": LINK}),
            ToolCall(name="issue_refund", args={"amount": 40}, error=f"refused {BIDI}"),
        ],
        final_answer=f"Done {ESCAPES} <a href='{LINK}'>see</a>",
        messages_to_user=["Looking it up…", f"Done {ESCAPES} <a href='{LINK}'>see</a>"],
        turns=3,
    )


def hostile_grade() -> Grade:
    return Grade(
        run_id=f"t1/{ATTRIBUTE}",
        task_id="t1",
        passed=False,
        truth=GraderResult(passed=False, reason=f"issue_refund.amount: {SCRIPT}"),
        path=GraderResult(passed=True, reason="2 calls"),
    )


HOSTILE_BLOCK = (
    '<details class="run"><summary><code>t1/&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</code> '
    "truth: issue_refund.amount: &lt;script&gt;alert(1)&lt;/script&gt;</summary>\n"
    "<dl><dt>task</dt><dd>t1</dd>"
    "<dt>input</dt><dd><pre>Refund A100 &lt;script&gt;alert(1)&lt;/script&gt;</pre></dd>"
    "<dt>graders</dt><dd><ul>"
    "<li>truth failed: issue_refund.amount: &lt;script&gt;alert(1)&lt;/script&gt;</li>"
    "<li>path passed: 2 calls</li></ul></dd>"
    "<dt>transcript</dt><dd><p>3 turns, 2 tool calls, stopped: completed</p><ol>"
    "<li><code>lookup_order</code>"
    "<pre>{&quot;order_id&quot;: &quot;\\&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&quot;}</pre>"
    "<p>result:</p><pre>{&quot;url&quot;: &quot;javascript:alert(document.cookie)&quot;}</pre></li>"
    "<li><code>issue_refund</code><pre>{&quot;amount&quot;: 40}</pre>"
    "<p>refused:</p><pre>refused \\u202egnp.exe\\u202c</pre></li></ol></dd>"
    "<dt>told the user before</dt><dd><pre>Looking it up…</pre></dd>"
    "<dt>answer</dt><dd><pre>Done ␛[2J␇done &lt;a href=&#x27;javascript:alert(document.cookie)"
    "&#x27;&gt;see&lt;/a&gt;</pre></dd></dl>\n</details>"
)


def hostile_page() -> str:
    summary = GradeSummary()
    summary.add(hostile_grade())
    evidence = {hostile_run().run_id: RunEvidence(hostile_run(), hostile_grade())}
    return render_report(content(summary=summary.as_dict(), evidence=evidence))


def test_a_failing_run_is_unfolded_with_every_value_escaped() -> None:
    page = hostile_page()
    assert HOSTILE_BLOCK in page
    for raw in (SCRIPT, ATTRIBUTE, BIDI, "\x1b", "\x07", "href='javascript"):
        assert raw not in page
    tags = Tags(page).tags
    assert {tag for tag, _ in tags} <= ALLOWED_TAGS | EVIDENCE_TAGS
    assert "<script" not in page.lower()
    # The only attributes data could reach are none: every href is the table of contents'.
    assert all(attrs.get("href", "#").startswith("#") for _, attrs in tags)
    assert not any(name.startswith("on") for _, attrs in tags for name in attrs)
    assert [attrs for tag, attrs in tags if tag == "details"] == [{"class": "run"}]


def test_a_long_text_is_folded_under_its_first_line() -> None:
    result = "line one of the tool's answer\n" + "x" * FOLD_CHARACTERS
    run = Run(
        run_id="r1",
        task_id="t",
        tool_calls=[ToolCall(name="search", args={}, result=result)],
        final_answer="ok",
    )
    block = run_evidence("r1", RunEvidence(run), summary="failed")
    assert (
        "<p>result:</p><details><summary>line one of the tool&#x27;s answer… (270 characters)"
        f"</summary><pre>line one of the tool&#x27;s answer\n{'x' * FOLD_CHARACTERS}</pre>"
        "</details>"
    ) in block
    assert "<dt>answer</dt><dd><pre>ok</pre></dd>" in block  # short: shown as it is


def test_a_run_the_store_lacks_shows_its_grade_and_says_so() -> None:
    grade = Grade(run_id="r1", task_id="t", passed=False, stop_reason="max_turns")
    assert run_evidence("r1", RunEvidence(None, grade), summary="cut off") == (
        '<details class="run"><summary><code>r1</code> cut off</summary>\n'
        "<dl><dt>task</dt><dd>t</dd>"
        "<dt>graders</dt><dd><ul><li>run ended with stop_reason max_turns</li></ul></dd>"
        '<dt>transcript</dt><dd><span class="none">not recorded in the store</span></dd></dl>\n'
        "</details>"
    )
    assert run_evidence("r1", None, summary="x") == ""
    assert run_evidence("r1", RunEvidence(None, None), summary="x") == ""


def test_a_plain_answer_shows_no_task_its_reference_and_what_was_not_checked() -> None:
    run = Run(run_id="q1", input="2+2?", final_answer="5", reference=f"4 {SCRIPT}")
    nothing = GraderResult(passed=None, reason="nothing to check: no tool call")
    grade = Grade(run_id="q1", task_id="sums", passed=True, truth=nothing)
    assert run_evidence("q1", RunEvidence(run, grade), summary="disagreement") == (
        '<details class="run"><summary><code>q1</code> disagreement</summary>\n'
        '<dl><dt>task</dt><dd><span class="none">none</span></dd>'
        "<dt>input</dt><dd><pre>2+2?</pre></dd>"
        "<dt>reference</dt><dd><pre>4 &lt;script&gt;alert(1)&lt;/script&gt;</pre></dd>"
        "<dt>graders</dt><dd><ul><li>truth: nothing to check: no tool call</li></ul></dd>"
        "<dt>transcript</dt><dd><p>0 tool calls, stopped: completed</p></dd>"
        "<dt>answer</dt><dd><pre>5</pre></dd></dl>\n"
        "</details>"
    )


def test_a_disagreement_shows_the_run_beside_the_judges_reason() -> None:
    report = calibration(SIX, reason=f"the agent said {SCRIPT}")
    run = Run(run_id="r3", task_id="t", input="Cancel A101", tool_calls=[], final_answer="No.")
    page = render_report(
        content(calibrations=[report.as_dict()], evidence={"r3": RunEvidence(run)})
    )
    section = page[page.index('<section id="disagreements">') :]
    assert (
        '<details class="run"><summary><code>r3</code> human pass, judge fail</summary>\n'
        "<dl><dt>task</dt><dd>t</dd><dt>input</dt><dd><pre>Cancel A101</pre></dd>"
        "<dt>judge</dt><dd><pre>fail: the agent said &lt;script&gt;alert(1)&lt;/script&gt;</pre></dd>"
        "<dt>transcript</dt><dd><p>0 tool calls, stopped: completed</p></dd>"
        "<dt>answer</dt><dd><pre>No.</pre></dd></dl>\n</details>"
    ) in section
    assert section.count("<details") == 1  # r6 disagrees too, but its run is not known
    assert SCRIPT not in page


@pytest.fixture
def graded_shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(REPO / "tasks", tmp_path / "tasks")
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    runner = CliRunner()
    graded = runner.invoke(
        main, ["grade", "examples/runs/shop.jsonl", "--tasks", "tasks", "--out", "results"]
    )
    assert graded.exit_code == 0, graded.output
    return tmp_path


def test_report_unfolds_the_failing_runs_it_finds_in_the_store(graded_shop: Path) -> None:
    result = CliRunner().invoke(main, ["report", "-o", "report.html"])
    assert result.exit_code == 0, result.output
    page = (graded_shop / "report.html").read_text(encoding="utf-8")
    blocks = re.findall(r'<details class="run">.*?\n</details>', page, re.S)
    assert len(blocks) == 13  # one per failing run listed
    assert (
        '<details class="run"><summary><code>shop/cancel_shipped/3</code> truth: called '
        "forbidden tool issue_refund (call #2, refused: not refundable: order is shipped)"
        "</summary>\n<dl><dt>task</dt><dd>cancel_shipped</dd><dt>graders</dt><dd><ul>"
        "<li>truth failed: called forbidden tool issue_refund (call #2, refused: not "
        "refundable: order is shipped)</li>"
        "<li>path failed: 3 tool calls, step budget is 2 (2 × 1 expected)</li>"
        "<li>state passed: 2 state checks passed; no change outside [orders.A101.status]</li>"
        "</ul></dd><dt>transcript</dt><dd><p>4 turns, 3 tool calls, stopped: completed</p><ol>"
        "<li><code>lookup_order</code><pre>{&quot;order_id&quot;: &quot;A101&quot;}</pre>"
        "<p>result:</p><pre>{&quot;status&quot;: &quot;shipped&quot;, &quot;total&quot;: 25}"
        "</pre></li>"
        "<li><code>issue_refund</code><pre>{&quot;order_id&quot;: &quot;A101&quot;, "
        "&quot;amount&quot;: 25}</pre><p>refused:</p><pre>not refundable: order is shipped"
        "</pre></li>"
        "<li><code>cancel_order</code><pre>{&quot;order_id&quot;: &quot;A101&quot;}</pre>"
        "<p>result:</p><pre>{&quot;ok&quot;: true}</pre></li></ol></dd>"
        "<dt>answer</dt><dd><pre>A101 is cancelled.</pre></dd></dl>\n</details>"
    ) in blocks
