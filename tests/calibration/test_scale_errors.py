"""Likert errors and choices' per-class scores in the calibration report: exact values
against scikit-learn and statsmodels, shown in text, Markdown and JSON only for those scales."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import mean_absolute_error, precision_recall_fscore_support
from statsmodels.stats.weightstats import DescrStatsW

from judgekit.calibration import build_report, render_markdown, render_text
from judgekit.calibration.report import CalibrationReport
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric
from tests.calibration.test_report import label, verdict
from tests.conftest import REPO

LIKERT_HUMAN = [1, 2, 3, 4, 5, 3, 2, 4, 5, 1]
LIKERT_JUDGE = [2, 2, 4, 4, 5, 5, 2, 3, 5, 2]  # errors +1 0 +1 0 0 +2 0 -1 0 +1

CHOICES = ["correct", "partial", "wrong"]
CHOICE_HUMAN = ["correct", "correct", "correct", "partial", "partial", "wrong", "wrong"]
CHOICE_JUDGE = ["correct", "correct", "partial", "correct", "partial", "partial", "partial"]


def _report(rubric: Rubric, human: list, judge: list) -> CalibrationReport:  # type: ignore[type-arg]
    verdicts = [verdict(rubric, f"q{i}", score) for i, score in enumerate(judge)]
    labels = dict(label(rubric, f"q{i}", h) for i, h in enumerate(human))
    return build_report(rubric, verdicts, labels)


def _choices_rubric() -> Rubric:
    return Rubric(
        id="correctness",
        scale={"choices": CHOICES},
        prompt="Is {final_answer} correct?",
        judge={"model": "openai/gpt-4o-mini"},
    )


def test_likert_errors_in_the_report() -> None:
    report = _report(
        load_rubric(REPO / "rubrics" / "answer_quality.yaml"), LIKERT_HUMAN, LIKERT_JUDGE
    )
    figures = report.as_dict()["scale_errors"]
    signed = np.array(LIKERT_JUDGE, float) - np.array(LIKERT_HUMAN, float)
    assert figures["mean_absolute_error"]["mean"] == pytest.approx(
        mean_absolute_error(LIKERT_HUMAN, LIKERT_JUDGE)
    )
    assert figures["mean_absolute_error"]["mean"] == pytest.approx(0.6)
    assert figures["mean_signed_error"]["mean"] == pytest.approx(0.4)
    assert figures["mean_absolute_error"]["ci"] == pytest.approx(
        list(DescrStatsW(np.abs(signed)).tconfint_mean(alpha=0.05))
    )
    assert figures["mean_signed_error"]["ci"] == pytest.approx(
        list(DescrStatsW(signed).tconfint_mean(alpha=0.05))
    )
    assert (figures["confidence"], figures["interval_method"]) == (0.95, "t")
    text = render_text(report).splitlines()
    assert "mean absolute error 0.600 [0.100, 1.100] (95%, t)" in text
    assert (
        "mean signed error 0.400 [-0.203, 1.003] (95%, t; judge − human: above 0, the judge "
        "scores higher)" in text
    )
    md = render_markdown(report)
    assert "| mean absolute error | 0.600 [0.100, 1.100] (95%, t) |" in md


def test_choices_per_class_scores_in_the_report() -> None:
    report = _report(_choices_rubric(), CHOICE_HUMAN, CHOICE_JUDGE)
    figures = json.loads(json.dumps(report.as_dict()))["scale_errors"]
    precision, recall, f1, support = precision_recall_fscore_support(
        CHOICE_HUMAN, CHOICE_JUDGE, labels=CHOICES, zero_division=np.nan
    )
    for index, name in enumerate(CHOICES):
        got = figures["per_class"][name]
        expected = [precision[index], recall[index], f1[index]]
        assert [got["precision"], got["recall"], got["f1"]] == pytest.approx(
            [None if np.isnan(e) else e for e in expected], nan_ok=True
        )
        assert got["support"] == support[index]
    # the judge never says "wrong": its precision is undefined (null), left out of the macro
    assert figures["per_class"]["wrong"] == {
        "precision": None,
        "recall": 0.0,
        "f1": 0.0,
        "support": 2,
        "predicted": 0,
    }
    macro = precision_recall_fscore_support(
        CHOICE_HUMAN, CHOICE_JUDGE, labels=CHOICES, zero_division=np.nan, average="macro"
    )
    assert [figures["macro"][k] for k in ("precision", "recall", "f1")] == pytest.approx(
        list(macro[:3])
    )
    text = render_text(report).splitlines()
    start = text.index("per-class scores (human label = truth, judge's choice = prediction):")
    assert text[start + 1 : start + 8] == [
        "  class    precision  recall     F1  support  judged",
        "  correct      0.667   0.667  0.667        3       3",
        "  partial      0.250   0.500  0.333        2       4",
        "  wrong    undefined   0.000  0.000        2       0",
        "  macro        0.458   0.389  0.333",
        "  wrong: precision undefined (the judge never chose it)",
        "  macro averages leave the undefined figures out (not counted as 0)",
    ]
    markdown = render_markdown(report)
    assert "| partial | 0.250 | 0.500 | 0.333 | 2 | 4 |\n" in markdown
    assert "| class partial |" not in markdown  # a table of its own, not figure rows


def test_binary_reports_have_no_scale_errors() -> None:
    # Their false-pass and false-fail rates say how the judge errs.
    binary = load_rubric(REPO / "rubrics" / "goal_completion.yaml")
    report = _report(binary, ["pass", "fail", "pass"], ["pass", "pass", "fail"])
    assert report.as_dict()["scale_errors"] is None
    text = render_text(report)
    assert "mean absolute error" not in text and "per-class scores" not in text
    assert "Per-class scores" not in render_markdown(report)
