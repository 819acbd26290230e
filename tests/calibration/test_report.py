"""The calibration report built in code from Verdict and Label objects: exact figures."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from judgekit.calibration import build_report, promotion_record
from judgekit.calibration.report import CalibrationReport
from judgekit.errors import CalibrationError
from judgekit.formats.label import Label
from judgekit.formats.promotion import record_digest
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.stats import kappa_standard_error
from tests.conftest import REPO

AT = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
Z_95 = 1.959963984540054


@pytest.fixture
def rubric() -> Rubric:
    return load_rubric(REPO / "rubrics" / "goal_completion.yaml")


def verdict(
    rubric: Rubric,
    run_id: str,
    score: str | None,
    *,
    version: str | None = None,
    model: str | None = None,
    minute: int = 0,
    reason: str | None = None,
) -> Verdict:
    return Verdict(
        run_id=run_id,
        rubric_id=rubric.id,
        rubric_version=version or rubric_version(rubric),
        model=model or rubric.judge.model,
        status="unscored" if score is None else "scored",
        score=score,
        reason=reason,
        at=AT + timedelta(minutes=minute),
    )


def label(
    rubric: Rubric, run_id: str, value: str, labeler: str = "ana", **extra: str
) -> tuple[tuple[str, str], Label]:
    made = Label(run_id=run_id, rubric_id=rubric.id, label=value, labeler=labeler, at=AT, **extra)
    return (run_id, labeler), made


def report_of(
    rubric: Rubric, human: list[str], judge: list[str], **options: object
) -> CalibrationReport:
    verdicts = [verdict(rubric, f"r{i}", score) for i, score in enumerate(judge)]
    labels = dict(label(rubric, f"r{i}", value) for i, value in enumerate(human))
    return build_report(rubric, verdicts, labels, **options)  # type: ignore[arg-type]


# Humans pass r0-r5 and fail r6-r9; the judge fails r5 and passes r9.
HUMAN = ["pass"] * 6 + ["fail"] * 4
JUDGE = ["pass"] * 5 + ["fail"] + ["fail"] * 3 + ["pass"]


def test_figures_of_ten_runs(rubric: Rubric) -> None:
    report = report_of(rubric, HUMAN, JUDGE)
    assert report.n == 10
    assert report.figures.agreement == 0.8
    # p_o = 0.8, p_e = 0.6·0.6 + 0.4·0.4 = 0.52: kappa = 0.28 / 0.48
    assert report.kappa == pytest.approx(7 / 12, abs=1e-15)
    se = kappa_standard_error(HUMAN, JUDGE, labels=["pass", "fail"])
    assert report.figures.kappa_se == pytest.approx(se, abs=1e-15)
    low, high = report.kappa_ci
    assert low == pytest.approx(7 / 12 - Z_95 * se, abs=1e-12)
    assert 7 / 12 + Z_95 * se > 1.0
    assert high == 1.0  # kappa is at most 1: the interval is cut there
    # Gwet: pi = 0.6, p_e = 2·0.6·0.4 = 0.48: AC1 = 0.32 / 0.52
    assert report.figures.ac1 == pytest.approx(8 / 13, abs=1e-15)
    assert report.figures.weighted_kappa is None
    assert report.confusion == {"pass": {"pass": 5, "fail": 1}, "fail": {"pass": 1, "fail": 3}}
    assert report.class_balance.as_dict() == {
        "human": {"pass": 6, "fail": 4},
        "judge": {"pass": 6, "fail": 4},
    }
    rates = report.error_rates
    assert rates is not None
    assert (rates.false_pass_rate, rates.false_fail_rate) == (0.25, 1 / 6)


def test_criteria_and_labels_needed_of_ten_runs(rubric: Rubric) -> None:
    report = report_of(rubric, HUMAN, JUDGE)
    assert report.promotable is False
    assert [c.name for c in report.failed] == ["min_labels", "min_per_class", "min_kappa"]
    by_name = {c.name: c for c in report.criteria}
    assert by_name["min_labels"].as_dict() == {
        "value": 10,
        "bar": 50,
        "met": False,
        "short_by": 40,
        "what": "runs compared",
    }
    assert by_name["min_per_class"].explain() == (
        "min_per_class: fewest human labels in a class (fail) 4, bar 10 (6 short)"
    )
    kappa_low = report.kappa_ci[0]
    assert kappa_low is not None
    assert by_name["min_kappa"].value == kappa_low
    assert by_name["min_kappa"].short_by == pytest.approx(0.6 - kappa_low, abs=1e-15)
    # kappa 0.583 is below the bar 0.6: no number of labels brings the lower bound up to it.
    assert report.labels_needed.as_dict() == {
        "for_min_labels": 40,
        "for_kappa": None,
        "kappa_reachable": False,
    }


def test_one_class_throughout_leaves_kappa_undefined(rubric: Rubric) -> None:
    report = report_of(rubric, ["pass"] * 4, ["pass"] * 4)
    assert report.figures.agreement == 1.0
    assert report.kappa is None
    assert report.kappa_ci == (None, None)
    assert report.figures.kappa_se is None
    assert report.figures.ac1 == 1.0
    rates = report.error_rates
    assert rates is not None
    assert (rates.false_pass_rate, rates.false_pass_ci) == (None, (None, None))
    assert rates.false_fail_rate == 0.0
    kappa = next(c for c in report.criteria if c.name == "min_kappa")
    assert (kappa.value, kappa.met, kappa.short_by) == (None, False, None)
    assert kappa.explain() == (
        "min_kappa: lower bound of the 95% kappa interval undefined, bar 0.6 (not met)"
    )
    per_class = next(c for c in report.criteria if c.name == "min_per_class")
    assert (per_class.value, per_class.what) == (0, "fewest human labels in a class (fail)")
    assert report.labels_needed.as_dict() == {
        "for_min_labels": 46,
        "for_kappa": None,
        "kappa_reachable": False,
    }
    data = report.as_dict()
    assert (data["kappa"], data["kappa_ci"], data["false_pass_ci"]) == (
        None,
        [None, None],
        [None, None],
    )


def test_what_the_join_leaves_out_is_counted(rubric: Rubric) -> None:
    verdicts = [
        verdict(rubric, "a", "fail", minute=0),
        verdict(rubric, "a", "pass", minute=1),  # the latest verdict of a run wins
        verdict(rubric, "b", "fail", reason="no refund"),
        verdict(rubric, "c", None),  # unscored
        verdict(rubric, "d", "pass"),  # tied labels
        verdict(rubric, "e", "pass"),  # no label
        verdict(rubric, "a", "fail", version="0123456789ab"),
        verdict(rubric, "b", "pass", model="anthropic/claude-x"),
    ]
    labels = dict(
        [
            label(rubric, "a", "pass"),
            label(rubric, "b", "pass", note="refunded"),
            label(rubric, "b", "pass", "ben"),
            label(rubric, "c", "fail"),
            label(rubric, "d", "pass"),
            label(rubric, "d", "fail", "ben"),
            label(rubric, "f", "fail"),  # no verdict
        ]
    )
    report = build_report(rubric, verdicts, labels)
    assert report.counts.as_dict() == {
        "n": 2,
        "n_unscored": 1,
        "n_tied": 1,
        "n_tied_against_judge": 0,
        "n_labelled_runs": 5,
        "n_verdicts": 5,
        "n_labelled_without_verdict": 1,
        "n_other_versions": 1,
        "n_other_models": 1,
        "unscored_rate": 0.25,
        "n_scored_verdicts": 4,  # a, b, d, e: labelled or not
        "n_unlabelled": 2,  # d (tied) and e (no label)
    }
    assert [d.as_dict() for d in report.disagreements] == [
        {
            "run_id": "b",
            "human": "pass",
            "judge": "fail",
            "reason": "no refund",
            "notes": {"ana": "refunded"},
        }
    ]
    assert {name: f.as_dict() for name, f in report.labelers.items()} == {
        "ana": {"labels": 5, "compared": 2, "agreement_with_judge": 0.5},
        "ben": {"labels": 2, "compared": 1, "agreement_with_judge": 0.0},
    }
    assert report.stale_labels is None
    rates = report.pass_rates
    assert rates is not None
    # Scored verdicts: a pass, b fail, d pass, e pass; d and e have no usable label.
    assert (rates.raw, rates.n_scored, rates.n_unlabelled) == (0.75, 4, 2)


def test_stale_labels_are_listed_and_still_compared(rubric: Rubric) -> None:
    verdicts = [verdict(rubric, "a", "pass"), verdict(rubric, "b", "pass")]
    labels = dict(
        [
            label(rubric, "a", "pass", item_hash="1" * 64),
            label(rubric, "b", "pass", item_hash="2" * 64),
        ]
    )
    report = build_report(rubric, verdicts, labels, item_hashes={"a": "1" * 64, "b": "3" * 64})
    assert [s.as_dict() for s in report.stale_labels or []] == [{"run_id": "b", "labeler": "ana"}]
    assert report.n == 2


def test_no_shared_run_and_nothing_to_compare_are_errors(rubric: Rubric) -> None:
    version = rubric_version(rubric)
    with pytest.raises(CalibrationError) as nothing_shared:
        build_report(rubric, [verdict(rubric, "a", "pass")], dict([label(rubric, "b", "pass")]))
    assert str(nothing_shared.value) == (
        f"no run of goal_completion (version {version}, judge openai/gpt-4o-mini) has both a "
        "label and a verdict: 1 labelled runs, 1 verdicts of this version"
    )
    with pytest.raises(CalibrationError) as nothing_left:
        build_report(rubric, [verdict(rubric, "a", None)], dict([label(rubric, "a", "pass")]))
    assert str(nothing_left.value) == (
        f"nothing to compare for goal_completion (version {version}): of 1 runs with both a "
        "label and a verdict, 1 verdicts are unscored and 0 runs have tied labels"
    )


def test_a_promotable_report_makes_its_record(rubric: Rubric) -> None:
    human = ["pass"] * 30 + ["fail"] * 30
    report = report_of(rubric, human, human)
    assert report.promotable is True
    assert report.kappa == 1.0
    record = promotion_record(report, now=AT)
    data = record.as_json()
    # The evidence: each compared run with its label and score (the judge gave no
    # confidence), and the verdicts' digest; a report built in code read no files.
    assert data.pop("evidence") == [
        {"run_id": run, "human": h, "judge": h, "confidence": None}
        for run, h in zip(report.pairs.runs, report.pairs.human, strict=True)  # type: ignore[union-attr]
    ]
    sources = data.pop("sources")
    assert (sources["labels"], sources["split"], sources["verdicts"]["n"]) == (None, None, 60)
    assert data.pop("digest") == record_digest(record.as_json())
    assert data == {
        "rubric_id": "goal_completion",
        "rubric_version": rubric_version(rubric),
        "promotable": True,
        "model": "openai/gpt-4o-mini",
        "judge": rubric.judge.model_dump(exclude_none=True),  # no jury: no jury fields
        "n": 60,
        "n_unscored": 0,
        "n_tied": 0,
        "class_balance": {"human": {"pass": 30, "fail": 30}, "judge": {"pass": 30, "fail": 30}},
        "agreement": 1.0,
        "kappa": 1.0,
        "kappa_ci": list(report.kappa_ci),
        "interval_method": "analytic",
        "ac1": 1.0,
        "confusion": {"pass": {"pass": 30, "fail": 0}, "fail": {"pass": 0, "fail": 30}},
        "false_pass_rate": 0.0,
        "false_fail_rate": 0.0,
        "unscored_rate": 0.0,
        "policy": {
            "min_labels": 50,
            "min_per_class": 10,
            "min_kappa": 0.6,
            "confidence": 0.95,
            "max_flip_rate": None,
            "max_ece": None,
            "test_share": 0.5,
            "selective": None,
        },
        "criteria": {c.name: c.as_dict() for c in report.criteria},
        "labelers": {"ana": 60},
        "promoted_at": "2026-11-29T10:00:00+00:00",
    }
    assert record.promoted_time == AT


def test_a_report_that_is_not_promotable_has_no_record(rubric: Rubric) -> None:
    with pytest.raises(CalibrationError, match="goal_completion is not promotable"):
        promotion_record(report_of(rubric, HUMAN, JUDGE))


def test_a_likert_report_has_a_weighted_kappa_and_no_pass_rates() -> None:
    rubric = load_rubric(REPO / "rubrics" / "answer_quality.yaml")
    human, judge = [1, 2, 3, 4, 5, 3], [1, 2, 3, 4, 5, 3]
    verdicts = [
        verdict(rubric, f"q{i}", score)
        for i, score in enumerate(judge)  # type: ignore[arg-type]
    ]
    labels = dict(label(rubric, f"q{i}", h) for i, h in enumerate(human))  # type: ignore[arg-type]
    report = build_report(rubric, verdicts, labels)
    assert (report.kappa, report.figures.weighted_kappa) == (1.0, 1.0)
    assert (report.error_rates, report.pass_rates) == (None, None)
    assert math.isclose(report.figures.agreement or 0, 1.0)
