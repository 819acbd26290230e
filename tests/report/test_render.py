"""The HTML report: exact rows from real grades and a real calibration, one self-contained
file, and untrusted text escaped everywhere."""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from judgekit import Grade, GraderResult, grade_run, load_runs, load_tasks
from judgekit.calibration import CalibrationReport, build_report
from judgekit.formats.label import Label
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.graders.summary import GradeSummary
from judgekit.monitoring.model import Alert, Point, Series
from judgekit.report import (
    MAX_DISAGREEMENTS,
    ReportContent,
    RubricLine,
    render_report,
    write_report,
)
from tests.conftest import REPO

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
HOSTILE_REASON = "<script>alert(1)</script>"
HOSTILE_RUN = '"><img src=x onerror=alert(1)>'
# A tiny valid PNG is not needed: the report embeds whatever bytes it is given.
PNG_A = b"\x89PNG\r\n\x1a\nfirst image"
PNG_B = b"\x89PNG\r\n\x1a\n\x00\xffsecond image"
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p",
    "strong", "section", "div", "table", "thead", "tbody", "tr", "th", "td", "figure", "img",
    "figcaption", "nav", "ul", "li", "a",
}  # fmt: skip


class Tags(HTMLParser):
    """Every tag of a document with its attributes, as a browser would read them."""

    def __init__(self, document: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(document)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def shop_summary() -> dict[str, Any]:
    """The suite summary of the example shop runs graded against tasks/shop.yaml."""
    tasks = load_tasks(REPO / "tasks" / "shop.yaml")
    summary = GradeSummary()
    for run in load_runs(REPO / "examples" / "runs" / "shop.jsonl"):
        summary.add(grade_run(run, tasks.get(run.task_id)))
    return summary.as_dict()


def calibration(
    pairs: list[tuple[str, str, str]], *, reason: str = "judged by the rubric"
) -> CalibrationReport:
    """A real calibration report of goal_completion on (run, human, judge) triples."""
    rubric = load_rubric(REPO / "rubrics" / "goal_completion.yaml")
    version = rubric_version(rubric)
    verdicts = [
        Verdict(
            run_id=run,
            rubric_id=rubric.id,
            rubric_version=version,
            model=rubric.judge.model,
            status="scored",
            score=judge,
            reason=reason,
            at=T0,
        )
        for run, _, judge in pairs
    ]
    labels = {
        (run, "ana"): Label(run_id=run, rubric_id=rubric.id, label=human, labeler="ana", at=T0)
        for run, human, _ in pairs
    }
    return build_report(rubric, verdicts, labels)


# Humans pass r1-r3 and fail r4-r6; the judge fails r3 and passes r6.
# p_o = 4/6, p_e = (3/6)(3/6) + (3/6)(3/6) = 1/2, kappa = (2/3 - 1/2) / (1/2) = 1/3.
SIX = [
    ("r1", "pass", "pass"), ("r2", "pass", "pass"), ("r3", "pass", "fail"),
    ("r4", "fail", "fail"), ("r5", "fail", "fail"), ("r6", "fail", "pass"),
]  # fmt: skip


def content(**overrides: Any) -> ReportContent:
    base: dict[str, Any] = {
        "title": "shop nightly",
        "generated_at": T0,
        "store_url": "postgresql+psycopg://ana:***@db/judgekit",
    }
    return ReportContent(**(base | overrides))


def day(i: int, successes: int, n: int = 20) -> Point:
    at = T0 - timedelta(days=10 - i)
    return Point(at.date().isoformat(), at, n, successes / n, 0.5, 0.9, successes=successes)


def pass_rate_with_alert() -> Series:
    points = [day(i, 16) for i in range(9)] + [day(9, 9)]
    points[-1] = Point(points[-1].label, points[-1].at, 20, 0.45, 0.258, 0.658, successes=9)
    baseline = Point("baseline", T0, 200, 0.8, 0.739, 0.85, successes=160)
    alert = Alert("pass_rate", baseline, points[-1], 0.0003, 0.01, "pass rate fell")
    return Series("pass_rate", "pass rate", "proportion", "gating", points, alert)


def test_the_task_rows_of_real_grades() -> None:
    page = render_report(content(summary=shop_summary()))
    assert (
        "<tr><th>task</th><th>runs</th><th>passed</th><th>pass@1 (95% CI)</th><th>pass@3</th>"
        "<th>pass^3</th><th>Truth failed</th><th>Path failed</th><th>State failed</th>"
        "<th>claimed success but failed</th><th>violations</th><th>tool calls refused</th>"
        "<th>mean turns</th><th>mean cost (USD)</th></tr>"
    ) in page
    # cancel_shipped: 1 of 4 passed; Wilson [0.046, 0.699]; pass@3 = 1 - C(3,3)/C(4,3) = 0.75;
    # Truth, Path and State failed 2, 1 and 2 of the 4.
    assert (
        "<tr><td>cancel_shipped</td><td>4</td><td>1</td><td>0.25 (0.05–0.70)</td><td>0.75</td>"
        "<td>0.00</td><td>2/4</td><td>1/4</td><td>2/4</td><td>3</td><td>0</td><td>14%</td>"
        "<td>2.8</td><td>0.0015</td></tr>"
    ) in page
    assert page.count("<tr><td>") == 4 + 13  # four tasks, thirteen failing runs
    assert "<strong>pass@1 0.28 (95% CI 0.12–0.51)</strong>" in page
    assert "<p>5 of 18 runs passed over 4 tasks</p>" in page
    assert (
        "<p>failing tasks (4 of 4): cancel_shipped, refund_and_notify, refund_full, "
        "refuse_overrefund</p>"
    ) in page


def test_a_hand_made_summary_with_unconfigured_graders() -> None:
    summary = GradeSummary()
    truth_ok = GraderResult(passed=True, reason="ok")
    for run, turns in (("t1/1", 2), ("t1/2", 3)):
        summary.add(Grade(run_id=run, task_id="t1", passed=True, truth=truth_ok, turns=turns))
    summary.add(
        Grade(
            run_id=HOSTILE_RUN,
            task_id="t1",
            passed=False,
            truth=GraderResult(passed=False, reason=HOSTILE_REASON),
            claimed_success=True,
            turns=4,
        )
    )
    page = render_report(content(summary=summary.as_dict()))
    # 2 of 3: Wilson [0.208, 0.939]; k = 3 runs: pass@3 = 1, pass^3 = C(2,3)/C(3,3) = 0.
    assert (
        "<tr><td>t1</td><td>3</td><td>2</td><td>0.67 (0.21–0.94)</td><td>1.00</td><td>0.00</td>"
        "<td>1/3</td><td>—</td><td>—</td><td>1</td><td>0</td><td>—</td><td>3.0</td><td>—</td></tr>"
    ) in page
    assert (
        "<tr><td>t1</td><td>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</td>"
        "<td>truth: &lt;script&gt;alert(1)&lt;/script&gt;</td></tr>"
    ) in page
    assert HOSTILE_RUN not in page
    assert HOSTILE_REASON not in page


def test_an_answer_column_appears_once_some_task_was_graded_on_it() -> None:
    summary = GradeSummary()
    told = GraderResult(passed=True, reason="told the user every expected value")
    missed = GraderResult(passed=False, reason="missing '40.00'")
    for run, answer in (("refund/1", told), ("refund/2", missed), ("refund/3", told)):
        summary.add(Grade(run_id=run, task_id="refund", passed=answer.passed, answer=answer))
    summary.add(Grade(run_id="cancel/1", task_id="cancel", passed=True))
    page = render_report(content(summary=summary.as_dict()))
    assert (
        "<th>pass@1 (95% CI)</th><th>Truth failed</th><th>Path failed</th><th>State failed</th>"
        "<th>Answer failed</th>"
    ) in page  # k = 1: pass@1 and pass^1 are pass@1 itself, shown once
    # refund: 2 of 3 passed, Answer failed 1 of 3 (Wilson [0.208, 0.939]); cancel set no
    # expect_answer.
    assert (
        "<tr><td>refund</td><td>3</td><td>2</td><td>0.67 (0.21–0.94)</td>"
        "<td>—</td><td>—</td><td>—</td><td>1/3</td><td>0</td><td>0</td>"
        "<td>—</td><td>—</td><td>—</td></tr>"
    ) in page
    assert (
        "<tr><td>cancel</td><td>1</td><td>1</td><td>1.00 (0.21–1.00)</td>"
        "<td>—</td><td>—</td><td>—</td><td>—</td><td>0</td><td>0</td>"
        "<td>—</td><td>—</td><td>—</td></tr>"
    ) in page
    assert (
        "<tr><td>refund</td><td>refund/2</td><td>answer: missing &#x27;40.00&#x27;</td></tr>"
        in page
    )
    assert "Truth, Path, State, Answer failed: runs each grader failed of those it graded" in page

    without = render_report(content(summary=shop_summary()))
    assert "Answer" not in without.split("<table>")[1].split("</table>")[0]
    assert "Truth, Path, State failed: runs each grader failed of those it graded" in without


def test_images_are_embedded_as_data_urls() -> None:
    page = render_report(content(images={"pass rate": PNG_A, "goal_completion": PNG_B}))
    assert page.count("data:image/png;base64,") == 2
    sources = [attrs["src"] for tag, attrs in Tags(page).tags if tag == "img"]
    assert [base64.b64decode(s.removeprefix("data:image/png;base64,")) for s in sources if s] == [
        PNG_A,
        PNG_B,
    ]
    assert "<figcaption>pass rate</figcaption>" in page


def full_content() -> ReportContent:
    report = calibration([*SIX, (HOSTILE_RUN, "pass", "fail")], reason=HOSTILE_REASON)
    return content(
        git_sha="abc1234",
        git_branch="main",
        summary=shop_summary(),
        series=[pass_rate_with_alert()],
        rubrics=[RubricLine("goal_completion", report.rubric_version, "draft", "new", "m")],
        calibrations=[report.as_dict()],
        images={"pass rate": PNG_A, f"confusion {HOSTILE_RUN}": PNG_B},
    )


def test_the_file_is_self_contained() -> None:
    page = render_report(full_content())
    assert page.startswith("<!DOCTYPE html>\n")
    assert "<script" not in page.lower()
    assert "http://" not in page and "https://" not in page
    assert "@import" not in page and "url(" not in page
    tags = Tags(page).tags
    assert {tag for tag, _ in tags} <= ALLOWED_TAGS
    anchors = {attrs["id"] for _, attrs in tags if attrs.get("id")}
    for _, attrs in tags:
        href = attrs.get("href")
        # Links only within the page (the table of contents), each to a section that exists.
        assert href is None or (href.startswith("#") and href[1:] in anchors)
        src = attrs.get("src")
        assert src is None or src.startswith("data:image/png;base64,")
        assert not any(name.startswith("on") for name in attrs)  # no event handler attribute
    assert sum(tag == "img" for tag, _ in tags) == 2


def test_untrusted_text_is_escaped_everywhere() -> None:
    page = render_report(full_content())
    assert HOSTILE_REASON not in page
    assert HOSTILE_RUN not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    escaped_run = "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"
    assert (
        f"<tr><td>{escaped_run}</td><td>pass</td><td>fail</td>"
        "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td></tr>"
    ) in page
    assert f'alt="confusion {escaped_run}"' in page  # the caption, inside an attribute


def test_hostile_title_store_and_rubric_ids() -> None:
    page = render_report(
        content(
            title="</title><script>x</script>",
            store_url="sqlite:///<b>.db",
            git_sha="<i>",
            rubrics=[RubricLine("<u>", "v", "stale", "<em>why</em>", "m")],
        )
    )
    assert "<title>&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;</title>" in page
    assert {tag for tag, _ in Tags(page).tags} <= ALLOWED_TAGS
    assert "<tr><td>&lt;u&gt;</td><td>v</td><td>m</td><td>stale</td>" in page


def test_calibration_figures_of_a_real_report() -> None:
    report = calibration(SIX)
    assert report.kappa == pytest.approx(1 / 3)
    page = render_report(content(calibrations=[report.as_dict()]))
    low, high = report.kappa_ci
    assert low is not None and high is not None
    assert "<tr><td>runs compared</td><td>6</td></tr>" in page
    assert "<tr><td>agreement</td><td>0.667</td></tr>" in page
    assert (
        f"<tr><td>Cohen&#x27;s kappa (95% CI)</td><td>0.333 [{low:.3f}, {high:.3f}]</td></tr>"
        in page
    )
    # The judge passes 1 of the 3 runs humans fail, and fails 1 of the 3 they pass.
    assert "<tr><td>false-pass rate (95% CI)</td><td>0.333 [" in page
    assert "<tr><td>false-fail rate (95% CI)</td><td>0.333 [" in page
    assert "<tr><td>promotable</td><td>no</td></tr>" in page
    assert "min_labels: runs compared 6, bar 50 (44 short)" in page
    assert "<tr><th>human \\ judge</th><th>pass</th><th>fail</th></tr>" in page
    assert "<tr><td>pass</td><td>2</td><td>1</td></tr>" in page
    assert "<tr><td>fail</td><td>1</td><td>2</td></tr>" in page
    # Disagreements: r3 (human pass, judge fail) and r6.
    assert "<tr><td>r3</td><td>pass</td><td>fail</td><td>judged by the rubric</td></tr>" in page
    assert "<tr><td>r6</td><td>fail</td><td>pass</td><td>judged by the rubric</td></tr>" in page


def test_a_three_class_confusion_table_and_undefined_figures() -> None:
    likert = {
        "rubric_id": "answer_quality",
        "rubric_version": "v1",
        "model": "m",
        "n": 5,
        "agreement": 0.6,
        "kappa": None,
        "kappa_ci": [None, None],
        "confusion": {"1": {"1": 1, "2": 0, "3": 0}, "2": {"1": 1, "2": 1, "3": 0}, "3": {"3": 2}},
        "false_pass_rate": None,
        "false_pass_ci": None,
        "disagreements": [],
    }
    page = render_report(content(calibrations=[likert]))
    assert "<tr><th>human \\ judge</th><th>1</th><th>2</th><th>3</th></tr>" in page
    assert "<tr><td>3</td><td>0</td><td>0</td><td>2</td></tr>" in page
    assert "<tr><td>Cohen&#x27;s kappa (95% CI)</td><td>undefined</td></tr>" in page
    assert "<tr><td>false-pass rate (95% CI)</td><td>undefined</td></tr>" in page
    assert "no disagreements" in page


def test_at_most_fifty_disagreements_per_rubric() -> None:
    # 60 runs humans pass and the judge fails, 15 where both pass, 15 where both fail.
    pairs = [(f"d{i:02d}", "pass", "fail") for i in range(60)]
    pairs += [(f"p{i:02d}", "pass", "pass") for i in range(15)]
    pairs += [(f"f{i:02d}", "fail", "fail") for i in range(15)]
    report = calibration(pairs)
    assert len(report.disagreements) == 60
    page = render_report(content(calibrations=[report.as_dict()]))
    section = page[page.index('<section id="disagreements">') :]
    assert section.count("<tr><td>d") == MAX_DISAGREEMENTS == 50
    assert "<tr><td>d49</td>" in section and "<tr><td>d50</td>" not in section
    assert '<p class="meta">and 10 more</p>' in section


def test_alerts_and_the_metric_table() -> None:
    series = pass_rate_with_alert()
    assert series.alert is not None
    # The same alert passed in both places is listed once.
    page = render_report(content(series=[series], alerts=[series.alert]))
    assert (
        "<tr><td>pass_rate</td><td>2026-11-28</td><td>45.0% (25.8%–65.8%), n=20</td>"
        "<td>80.0% (73.9%–85.0%), n=200</td><td>0.0003</td><td>0.01</td>"
        "<td>pass rate fell</td></tr>"
    ) in page
    assert page.count("<td>pass rate fell</td>") == 1
    assert (
        "<tr><td>pass_rate</td><td>pass rate</td><td>gating</td><td>2026-11-28</td>"
        "<td>45.0% (25.8%–65.8%)</td><td>20</td><td>alert</td><td></td></tr>"
    ) in page


def test_the_latest_value_skips_empty_windows_and_means_are_numbers() -> None:
    points = [
        Point("batch 1", T0, 12, 3.25, 2.9, 3.6, sd=0.6),
        Point("batch 2", T0, 0, None, None, None),
    ]
    turns = Series("turns", "turns per run", "mean", "informational", points, note="why")
    empty = Series("truth", "truth", "proportion", "gating", [])
    page = render_report(content(series=[turns, empty]))
    assert (
        "<tr><td>turns</td><td>turns per run</td><td>informational</td><td>batch 1</td>"
        "<td>3.25 (2.9–3.6)</td><td>12</td><td>—</td><td>why</td></tr>"
    ) in page
    assert (
        "<tr><td>truth</td><td>truth</td><td>gating</td><td>—</td><td>—</td><td>—</td>"
        "<td>—</td><td></td></tr>"
    ) in page
    assert '<p class="none">no alerts</p>' in page


def test_empty_content_renders_every_section() -> None:
    page = render_report(content())
    assert page.endswith("</html>\n")
    for anchor in ("suite", "tasks", "metrics", "rubrics", "calibration", "plots"):
        section = re.search(rf'<section id="{anchor}">(.*?)</section>', page, re.S)
        assert section is not None
        assert '<p class="none">none recorded</p>' in section.group(1)
    assert '<p class="none">no alerts</p>' in page
    assert "<table" not in page
    assert "generated 2026-11-29T10:00:00+00:00" in page
    assert "commit" not in page
    empty_summary = render_report(content(summary=GradeSummary().as_dict()))
    assert "<table" not in empty_summary


def test_the_header_names_the_commit_and_branch() -> None:
    page = render_report(content(git_sha="abc1234", git_branch="main"))
    assert "<h1>shop nightly</h1>" in page
    assert (
        "generated 2026-11-29T10:00:00+00:00 · store postgresql+psycopg://ana:***@db/judgekit"
        " · commit abc1234 (main)"
    ) in page


def test_write_report_writes_the_rendered_file(tmp_path: Path) -> None:
    target = tmp_path / "out" / "report.html"
    report = full_content()
    write_report(target, report)
    assert target.read_text(encoding="utf-8") == render_report(report)
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]


def test_rubric_lines_with_unknown_version_and_model() -> None:
    lines = [
        RubricLine("goal_completion", "522efa851831", "promoted", "calibrated on 60 labels", "m"),
        RubricLine("tone", None, "unknown", "no rubric file given", None),
    ]
    page = render_report(content(rubrics=lines))
    assert (
        "<tr><td>goal_completion</td><td>522efa851831</td><td>m</td><td>promoted</td>"
        "<td>calibrated on 60 labels</td></tr>"
    ) in page
    assert (
        "<tr><td>tone</td><td>—</td><td>—</td><td>unknown</td><td>no rubric file given</td></tr>"
        in page
    )
