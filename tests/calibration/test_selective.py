"""Selective judging in the calibration report: the threshold per alpha against scipy's
binomial tail, the policy's criterion, kappa measured on the kept verdicts, the text and
Markdown sections."""

from __future__ import annotations

import pytest
from scipy.stats import binom
from statsmodels.stats.proportion import proportion_confint

from judgekit.calibration import build_report, render_markdown, render_text
from judgekit.calibration.report import CalibrationReport
from judgekit.calibration.selective import verdict_confidence
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.verdict import Verdict, VerdictSample
from judgekit.stats import cohen_kappa_score
from tests.calibration.test_report import label, verdict
from tests.conftest import REPO

# 100 runs, humans pass the even ones; the judge errs on 1 of the 60 runs it is sure of
# (confidence 1), 2 of the 25 at 0.8 and 6 of the 15 at 0.6.
ERRORS = {7, 61, 62, 85, 86, 87, 88, 89, 90}


def _rubric(selective: dict[str, float] | None) -> Rubric:
    data = load_rubric(REPO / "rubrics" / "goal_completion.yaml").model_dump()
    data["promotion"]["selective"] = selective
    return Rubric.model_validate(data)


def _human(i: int) -> str:
    return "pass" if i % 2 == 0 else "fail"


def _report(selective: dict[str, float] | None) -> CalibrationReport:
    rubric = _rubric(selective)
    verdicts, labels = [], {}
    for i in range(100):
        flipped = {"pass": "fail", "fail": "pass"}[_human(i)]
        score = flipped if i in ERRORS else _human(i)
        made = verdict(rubric, f"r{i:02d}", score)
        verdicts.append(
            made.model_copy(update={"confidence": 1.0 if i < 60 else 0.8 if i < 85 else 0.6})
        )
        key, value = label(rubric, f"r{i:02d}", _human(i))
        labels[key] = value
    return build_report(rubric, verdicts, labels)


def test_thresholds_per_alpha_match_the_exact_binomial_test() -> None:
    figures = _report(None).selective
    assert figures is not None and figures.policy is None and figures.delta == 0.1
    rows = {row.alpha: row for row in figures.rows}
    # α = 0.05: the top threshold keeps 60 with 1 error, P(Bin(60, 0.05) ≤ 1) > 0.1: none.
    assert binom.cdf(1, 60, 0.05) == pytest.approx(0.1916, abs=1e-4)
    assert (rows[0.05].threshold, rows[0.05].coverage, rows[0.05].kept) == (None, 0.0, 0)
    # α = 0.1: 60 kept (1 error) and 85 kept (3 errors) pass; 100 kept (9 errors) does not.
    assert binom.cdf(3, 85, 0.1) < 0.1 < binom.cdf(9, 100, 0.1)
    assert (rows[0.1].threshold, rows[0.1].kept, rows[0.1].coverage) == (0.8, 85, 0.85)
    assert rows[0.1].agreement_on_kept == pytest.approx(82 / 85)
    upper = proportion_confint(3, 85, alpha=0.2, method="beta")[1]
    assert rows[0.1].guaranteed_agreement == pytest.approx(1 - upper, rel=1e-9)
    assert binom.cdf(9, 100, 0.15) < 0.1
    assert [rows[a].threshold for a in (0.15, 0.2, 0.3)] == [0.6, 0.6, 0.6]
    assert [p.kept for p in figures.curve] == [60, 85, 100]
    assert "selective" not in {c.name for c in _report(None).criteria}


def test_selective_policy_adds_a_criterion_and_measures_kappa_on_the_kept() -> None:
    report = _report({"alpha": 0.1, "delta": 0.1})
    by_name = {c.name: c for c in report.criteria}
    assert by_name["selective"].met and by_name["selective"].value == 0.85
    assert by_name["selective"].explain() == (
        "selective: at α = 0.1: coverage 0.85 (threshold 0.8, agreement on kept ≥ 0.90 with "
        "probability 0.9)"
    )
    kept = [i for i in range(85)]
    human = [_human(i) for i in kept]
    judge = [
        ("fail" if _human(i) == "pass" else "pass") if i in ERRORS else _human(i) for i in kept
    ]
    kappa = cohen_kappa_score(human, judge)
    assert by_name["min_kappa"].value is not None and by_name["min_kappa"].value < kappa
    assert (
        by_name["min_kappa"].what == "lower bound of the 95% kappa interval on the 85 kept verdicts"
    )
    assert report.kappa is not None and report.kappa < kappa  # the report's own kappa is on all
    assert report.as_dict()["selective"]["policy"]["threshold"] == 0.8


def test_no_threshold_fails_the_criterion_with_why() -> None:
    report = _report({"alpha": 0.02, "delta": 0.1})
    selective = next(c for c in report.criteria if c.name == "selective")
    assert not selective.met and not report.promotable
    assert selective.explain() == (
        "selective: at α = 0.02: no threshold keeps agreement ≥ 0.98 at δ = 0.1 (on 100 "
        "labelled verdicts)"
    )
    kappa = next(c for c in report.criteria if c.name == "min_kappa")
    assert kappa.value is None and not kappa.met


def test_sections_in_text_and_markdown() -> None:
    report = _report({"alpha": 0.1, "delta": 0.1})
    text = render_text(report)
    section = text[text.index("selective judging") : text.index("\nconfidence: ") + 1]
    assert section == (
        "selective judging: coverage at which agreement on kept verdicts ≥ 1 − α holds with "
        "probability 0.9 (δ = 0.1; 100 of 100 compared runs have a confidence)\n"
        "  α     threshold  coverage  agreement on kept  guaranteed agreement\n"
        "  0.05  none       0.00      —                  —\n"
        "  0.1   0.8        0.85      0.965              0.923\n"
        "  0.15  0.6        1.00      0.910              0.862\n"
        "  0.2   0.6        1.00      0.910              0.862\n"
        "  0.3   0.6        1.00      0.910              0.862\n"
        "  policy: at α = 0.1: coverage 0.85 (threshold 0.8, agreement on kept ≥ 0.90 with "
        "probability 0.9)\n"
    )
    md = render_markdown(report)
    assert "| 0.1 | 0.8 | 0.85 | 0.965 | 0.923 |\n" in md
    assert "| 0.05 | none | 0.00 | — | — |\n" in md


def test_confidence_falls_back_on_the_samples_agreement() -> None:
    rubric = _rubric(None)
    sampled = verdict(rubric, "r1", "pass").model_copy(
        update={
            "samples": [VerdictSample(score="pass")] * 4 + [VerdictSample(score="fail")],
            "agreement": 0.8,
        }
    )
    assert verdict_confidence(sampled) == 0.8
    assert verdict_confidence(sampled.model_copy(update={"confidence": 0.6})) == 0.6
    once: Verdict = verdict(rubric, "r1", "pass")
    assert verdict_confidence(once) is None
    assert _report_without_confidence(rubric).selective is None


def _report_without_confidence(rubric: Rubric) -> CalibrationReport:
    verdicts = [verdict(rubric, f"r{i}", _human(i)) for i in range(4)]
    labels = dict(label(rubric, f"r{i}", _human(i)) for i in range(4))
    return build_report(rubric, verdicts, labels)
