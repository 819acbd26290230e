"""Disagreements at scale: the console lists the largest few in natural order of run id,
the Markdown fits a GitHub comment with a note of what was cut, and the counts of scored
verdicts hold on every scale."""

from __future__ import annotations

from judgekit.calibration import build_report, render_markdown, render_text
from judgekit.calibration.markdown import COMMENT_LIMIT
from judgekit.formats.rubric_file import load_rubric
from tests.calibration.test_report import label, verdict
from tests.conftest import REPO


def _binary_report(n_disagreements: int, *, agree: int = 40):  # type: ignore[no-untyped-def]
    rubric = load_rubric(REPO / "rubrics" / "goal_completion.yaml")
    runs = [f"batch/{i}" for i in range(1, n_disagreements + agree + 1)]
    verdicts = [
        verdict(rubric, run, "fail" if i < n_disagreements else "pass", reason="no refund")
        for i, run in enumerate(runs)
    ]
    labels = dict(label(rubric, run, "pass", note="the refund went through") for run in runs)
    return build_report(rubric, verdicts, labels)


def test_console_lists_ten_in_natural_order_then_says_how_to_see_the_rest() -> None:
    report = _binary_report(30)
    # As strings, batch/10 would come before batch/2; a person reads 1, 2, …, 10.
    assert [d.run_id for d in report.disagreements][:11] == [f"batch/{i}" for i in range(1, 12)]
    lines = render_text(report).splitlines()
    start = lines.index("disagreements: 30 (10 shown, natural order of run id)")
    listed = lines[start + 1 : start + 31]
    assert listed[:3] == [
        "  batch/1: human pass, judge fail",
        "    judge: no refund",
        "    labeller: ana: the refund went through",
    ]
    assert [line for line in listed if not line.startswith("    ")] == [
        *(f"  batch/{i}: human pass, judge fail" for i in range(1, 11)),
    ]
    assert lines[start + 31] == (
        "  ... 20 more: --disagreements all lists every one; --json always has all"
    )
    assert lines[start + 32] == "promotion: not yet"
    every = render_text(report, disagreements=None).splitlines()
    assert "disagreements: 30" in every
    assert "  batch/30: human pass, judge fail" in every
    assert not any(line.startswith("  ... ") for line in every)


def test_ten_or_fewer_disagreements_print_as_before() -> None:
    lines = render_text(_binary_report(10)).splitlines()
    start = lines.index("disagreements: 10")
    assert lines[start + 30] == "    labeller: ana: the refund went through"
    assert lines[start + 31] == "promotion: not yet"


def test_likert_lists_the_largest_difference_first() -> None:
    rubric = load_rubric(REPO / "rubrics" / "answer_quality.yaml")
    judged = {"q/10": 2, "q/9": 4, "q/2": 1, "q/1": 5, "q/3": 3}  # humans say 5 throughout
    verdicts = [verdict(rubric, run, score) for run, score in judged.items()]  # type: ignore[arg-type]
    labels = dict(label(rubric, run, 5) for run in judged)  # type: ignore[arg-type]
    report = build_report(rubric, verdicts, labels)
    assert [d.run_id for d in report.disagreements] == ["q/2", "q/10", "q/3", "q/9"]
    lines = render_text(report, disagreements=2).splitlines()
    assert "disagreements: 4 (2 shown, largest difference first, then natural order of run id)" in (
        lines
    )


def test_markdown_of_2000_disagreements_fits_a_comment_with_a_note() -> None:
    report = _binary_report(2000)
    text = render_markdown(report)
    assert len(text) == 65_525
    assert len(text) + 1 <= COMMENT_LIMIT  # printed with a newline
    rows = [line for line in text.splitlines() if line.startswith("| `batch/")]
    assert len(rows) == 877
    assert rows[0] == "| `batch/1` | pass | fail | no refund | ana: the refund went through |"
    assert rows[-1].startswith("| `batch/877` |")
    assert text.endswith(
        "\n\n1123 more disagreements not shown: a comment holds 65,536 characters (877 of 2000 "
        "shown, natural order of run id; `judgekit calibrate --json` lists every one).\n\n"
        "</details>"
    )
    assert "<details><summary>2000 disagreements</summary>" in text


def test_markdown_of_few_disagreements_lists_them_all() -> None:
    text = render_markdown(_binary_report(30))
    assert text.endswith(
        "| `batch/30` | pass | fail | no refund | ana: the refund went through |\n\n</details>"
    )
    assert "not shown" not in text


def test_pairwise_counts_its_scored_verdicts() -> None:
    rubric = load_rubric(REPO / "rubrics" / "preference.yaml")
    scores = {"p/1": "A", "p/2": "B", "p/3": "tie", "p/4": None, "p/5": "A", "p/6": "B"}
    verdicts = [verdict(rubric, run, score) for run, score in scores.items()]
    labels = dict(label(rubric, run, "A") for run in ("p/1", "p/2", "p/3", "p/4"))
    report = build_report(rubric, verdicts, labels).as_dict()
    # 5 scored verdicts (p/4 is unscored); p/5 and p/6 have no label; no pass rate here.
    assert (report["n"], report["n_unscored"], report["n_verdicts"]) == (3, 1, 6)
    assert (report["n_scored_verdicts"], report["n_unlabelled"]) == (5, 2)
    assert report["raw_pass_rate"] is None
    assert "n_scored" not in report
