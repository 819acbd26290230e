"""`judgekit report` on a store holding two suites and a pull request's batch: a section per
suite (its own headline and tables), a table of contents, and the filters (exact HTML)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.grade import Grade
from judgekit.report import render_report
from judgekit.report.gather import suite_summaries
from judgekit.report.report_data import ReportContent
from tests.store.two_suites import record_two_suites

CONTENTS = (
    '<nav id="contents">\n<h2>Contents</h2>\n<ul>\n'
    '<li><a href="#suite-shop">Suite shop</a></li>\n'
    '<li><a href="#suite-travel">Suite travel</a></li>\n'
    '<li><a href="#alerts">Alerts</a></li>\n'
    '<li><a href="#metrics">Metrics</a></li>\n'
    '<li><a href="#rubrics">Rubrics</a></li>\n'
    '<li><a href="#calibration">Calibration</a></li>\n'
    '<li><a href="#plots">Plots</a></li>\n'
    '<li><a href="#disagreements">Disagreements</a></li>\n'
    "</ul>\n</nav>"
)


@pytest.fixture(autouse=True)
def two_suites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    record_two_suites()


def report(*options: str) -> tuple[str, str]:
    result = CliRunner().invoke(main, ["report", "-o", "report.html", *options])
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout, Path("report.html").read_text(encoding="utf-8")


def section(page: str, anchor: str) -> str:
    found = re.search(rf'<section id="{anchor}">\n(.*?)\n</section>', page, re.S)
    assert found is not None, anchor
    return found.group(1)


def test_each_suite_has_its_own_headline_and_tables() -> None:
    out, page = report("--branch", "main")
    assert (
        out
        == "wrote report.html: 20 runs of batch 2, 5 metrics, 0 alerts, 0 calibrations, 2 plots\n"
    )
    assert CONTENTS in page
    assert page.index(CONTENTS) < page.index('<section id="suite-shop">')
    shop, travel = section(page, "suite-shop"), section(page, "suite-travel")
    assert shop.startswith(
        "<h2>Suite shop</h2>\n"
        '<p class="headline"><strong>pass@1 0.70 (95% CI 0.40–0.89)</strong></p>\n'
        "<p>7 of 10 runs passed over 2 tasks</p>\n"
        "<p>failing tasks (2 of 2): cancel_order, refund_full</p>\n"
        "<h3>Tasks</h3>\n"
    )
    assert travel.startswith(
        "<h2>Suite travel</h2>\n"
        '<p class="headline"><strong>pass@1 0.60 (95% CI 0.31–0.83)</strong></p>\n'
        "<p>6 of 10 runs passed over 1 tasks</p>\n"
    )
    assert "<td>weather-gate-book</td>" in travel and "weather-gate-book" not in shop
    assert '<section id="suite">' not in page  # no blended headline
    assert " · only --branch main</p>" in page


def test_suite_and_branch_keep_one_suite_of_main() -> None:
    out, page = report("--suite", "shop", "--branch", "main")
    assert out.startswith("wrote report.html: 10 runs of batch 2, ")
    assert '<li><a href="#suite-shop">Suite shop</a></li>\n<li><a href="#alerts">' in page
    assert 'id="suite-travel"' not in page
    assert " · only --suite shop --branch main</p>" in page


def test_without_a_branch_the_latest_batch_is_the_pull_request_s() -> None:
    out, page = report()
    assert out.startswith("wrote report.html: 20 runs of batch 3, ")
    assert "<p>0 of 10 runs passed over 2 tasks</p>" in section(page, "suite-shop")


def test_a_filter_matching_nothing_is_exit_2() -> None:
    result = CliRunner().invoke(main, ["report", "-o", "report.html", "--suite", "hotel"])
    assert result.exit_code == 2
    assert result.output.endswith(": no grade or verdict in the store matches --suite hotel\n")
    assert not Path("report.html").exists()


def test_hostile_suite_names_make_safe_unique_anchors() -> None:
    grades = [
        Grade(run_id=f"{suite}/t/1", task_id="t", passed=True)
        for suite in ('"><b>x', "--b-x", "plain")
    ] + [Grade(run_id="loose", task_id="loose", passed=False)]
    suites = suite_summaries(grades)
    assert [name for name, _ in suites] == ['"><b>x', "--b-x", "plain", None]
    page = render_report(
        ReportContent(
            title="t", generated_at=datetime(2026, 11, 29, tzinfo=UTC), store_url="s", suites=suites
        )
    )
    assert (
        '<li><a href="#suite-b-x">Suite &quot;&gt;&lt;b&gt;x</a></li>\n'
        '<li><a href="#suite-b-x-2">Suite --b-x</a></li>\n'
        '<li><a href="#suite-plain">Suite plain</a></li>\n'
        '<li><a href="#suite-runs-of-no-suite">Suite runs of no suite</a></li>\n'
    ) in page
    assert "<b>x" not in page
