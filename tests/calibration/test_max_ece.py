"""A promotion policy's ``max_ece``: the upper bound of the ECE interval on the held-out
labels at or below the bar promotes, above it or with no confidence to measure it does not,
saying why; the record keeps the figures, and the check recomputes them from its evidence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from judgekit._util.number_format import threshold
from judgekit.calibration import verify_promotion_record
from judgekit.calibration.promotion import rubric_status
from judgekit.cli import main
from judgekit.formats.promotion import PromotionRecord, record_digest
from judgekit.formats.rubric_file import load_rubric
from judgekit.stats import calibration_errors
from tests.conftest import REPO
from tests.promoted import balanced, promote_for_real

HUMAN = balanced(30)
RUNS = list(HUMAN)
NONE = "no compared verdict has a confidence: judge with samples > 1, or judge.confidence: logprobs"


def rubric_with(root: Path, max_ece: float) -> Path:
    (root / "rubrics").mkdir()
    text = (REPO / "rubrics" / "goal_completion.yaml").read_text()
    path = root / "rubrics" / "goal_completion.yaml"
    policy = "confidence: 0.95}"
    assert text.count(policy) == 1
    path.write_text(text.replace(policy, f"confidence: 0.95, max_ece: {max_ece}}}"))
    assert load_rubric(path).promotion.max_ece == max_ece
    return path


def sure_and_right(i: int) -> float:
    """A judge right on every run and sure of most: ECE 0.05 where it says 0.9."""
    return 1.0 if i % 2 else 0.9


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def promote(rubric: Path) -> Result:
    verdicts = rubric.parent.parent / "goal_completion.promoted-verdicts.jsonl"
    args = ["promote", "--rubric", str(rubric), "--verdicts", str(verdicts), "--no-store"]
    return CliRunner().invoke(main, args)


def evidence(record: dict[str, Any]) -> tuple[list[bool], list[float]]:
    """Whether the judge agreed, and its confidence, on each run in the record's order (the
    order the bootstrap resampled)."""
    pairs = record["evidence"]
    return [p["human"] == p["judge"] for p in pairs], [p["confidence"] for p in pairs]


def test_a_calibrated_judge_is_promoted_with_its_figures_recorded(root: Path) -> None:
    rubric = rubric_with(root, 0.1)
    confidences = {run: sure_and_right(i) for i, run in enumerate(RUNS)}
    record = promote_for_real(rubric, HUMAN, confidences=confidences)
    right, sure = evidence(record)
    assert right == [True] * 60 and sorted(sure) == sorted(confidences.values())
    expected = calibration_errors(right, sure)
    assert expected.ece == pytest.approx(0.05, abs=1e-15)
    assert record["criteria"]["max_ece"] == {
        "value": expected.ece_ci[1],
        "bar": 0.1,
        "met": True,
        "short_by": None,
        "what": "upper bound of the 95% ECE interval",
    }
    assert record["confidence_calibration"] == {
        "n": 60,
        "n_bins": 10,
        "ece": expected.ece,
        "ece_ci": list(expected.ece_ci),
        "brier": expected.brier,
        "brier_ci": list(expected.brier_ci),
    }
    assert record["policy"]["max_ece"] == 0.1
    assert rubric_status(load_rubric(rubric), rubric.parent) == (
        "promoted",
        "calibrated on 60 fresh test labels",
    )


def test_an_overconfident_judge_is_refused(root: Path) -> None:
    """Wrong on one run in ten, sure of every verdict: ECE 0.1, kappa high enough."""
    rubric = rubric_with(root, 0.1)
    judged = {
        run: ("fail" if h == "pass" else "pass") if i % 10 == 0 else h
        for i, (run, h) in enumerate(HUMAN.items())
    }
    with pytest.raises(AssertionError):
        promote_for_real(rubric, HUMAN, judged, confidences=dict.fromkeys(RUNS, 1.0))
    refused = promote(rubric)
    right = [judged[run] == HUMAN[run] for run in sorted(RUNS)]
    errors = calibration_errors(right, [1.0] * 60)
    assert errors.ece == pytest.approx(0.1, abs=1e-15)
    high = errors.ece_ci[1]
    assert refused.exit_code == 1
    assert refused.output.splitlines()[:2] == [
        "goal_completion (version 522efa851831) not promoted: 1 of 4 criteria not met",
        f"  max_ece: upper bound of the 95% ECE interval {threshold(high)}, bar 0.1 "
        f"({threshold(high - 0.1)} over)",
    ]
    assert not (rubric.parent / "goal_completion.promotion.json").exists()


def test_no_confidence_is_not_promoted_saying_why(root: Path) -> None:
    rubric = rubric_with(root, 0.2)
    with pytest.raises(AssertionError):
        promote_for_real(rubric, HUMAN)
    refused = promote(rubric)
    assert refused.exit_code == 1
    assert refused.output.splitlines()[:2] == [
        "goal_completion (version 522efa851831) not promoted: 1 of 4 criteria not met",
        f"  max_ece: upper bound of the 95% ECE interval undefined, bar 0.2 (not met: {NONE})",
    ]


def resealed(record: dict[str, Any]) -> PromotionRecord:
    edited = PromotionRecord.model_validate(record)
    return edited.model_copy(update={"digest": record_digest(edited.as_json())})


def problems(record: dict[str, Any], rubric: Path) -> list[str]:
    found = verify_promotion_record(
        resealed(record), load_rubric(rubric), rubrics_dir=rubric.parent
    )
    return [problem.text for problem in found]


def test_the_check_recomputes_ece_from_the_evidence(root: Path) -> None:
    rubric = rubric_with(root, 0.1)
    confidences = {run: sure_and_right(i) for i, run in enumerate(RUNS)}
    record = promote_for_real(rubric, HUMAN, confidences=confidences)
    assert problems(record, rubric) == []
    high = record["criteria"]["max_ece"]["value"]
    # the recorded bound lowered, digest recomputed: the evidence gives the real one back
    lowered = json.loads(json.dumps(record))
    lowered["criteria"]["max_ece"]["value"] = 0.01
    assert problems(lowered, rubric) == [
        f"max_ece 0.01 in the record, {high:.3f} recomputed from its 60 pairs"
    ]
    # the recorded ECE edited: recomputed from the evidence's confidences
    edited = json.loads(json.dumps(record))
    edited["confidence_calibration"]["ece"] = 0.01
    assert problems(edited, rubric) == [
        "ECE 0.01 in the record, 0.050 recomputed from the 60 confidences of its evidence"
    ]
    # every confidence made 0.5: the ECE recomputed breaks the bar
    unsure = json.loads(json.dumps(record))
    for pair in unsure["evidence"]:
        pair["confidence"] = 0.5
    calibration = record["confidence_calibration"]
    texts = problems(unsure, rubric)
    assert texts[:2] == [
        "ECE 0.05 in the record, 0.500 recomputed from the 60 confidences of its evidence",
        f"ECE interval's lower bound {threshold(calibration['ece_ci'][0])} in the record, "
        "0.500 recomputed from the 60 confidences of its evidence",
    ]
    assert f"max_ece {threshold(high)} in the record, 0.500 recomputed from its 60 pairs" in texts
    assert (
        "not met on its evidence: max_ece: upper bound of the 95% ECE interval 0.5, bar 0.1 "
        "(0.4 over)"
    ) in texts
    # confidences removed from the evidence: none left to measure
    removed = json.loads(json.dumps(record))
    for pair in removed["evidence"]:
        pair["confidence"] = None
    texts = problems(removed, rubric)
    assert "its confidence_calibration is not of its evidence, which has no confidence" in texts
    assert (
        "not met on its evidence: max_ece: upper bound of the 95% ECE interval undefined, bar "
        f"0.1 (not met: {NONE})"
    ) in texts
