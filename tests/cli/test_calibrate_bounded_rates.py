"""`judgekit calibrate`: a corrected pass rate and its interval stay in [0, 1], and the report
says when a method's figure was clipped to get there."""

from __future__ import annotations

import math
import statistics

import pytest

from tests.cli.test_calibrate_cli import HUMAN, JUDGE, Workspace, ws

__all__ = ["ws"]

Z = statistics.NormalDist().inv_cdf(0.975)


def few_labels_case(ws: Workspace) -> None:
    """Eight labelled runs (humans pass 5, the judge passes 3 of them and fails the 3 human
    fails) and seven runs nobody labelled, five of them passed by the judge."""
    human = ["pass"] * 5 + ["fail"] * 3
    judge = ["pass"] * 3 + ["fail"] * 5
    unlabelled = ["pass"] * 5 + ["fail"] * 2
    verdicts = [ws.verdict(f"r{i}", s) for i, s in enumerate(judge)]
    verdicts += [ws.verdict(f"u{i}", s) for i, s in enumerate(unlabelled)]
    ws.write(verdicts, [ws.label(f"r{i}", h) for i, h in enumerate(human)])


def test_a_prediction_powered_interval_past_1_is_clipped_and_said_so(ws: Workspace) -> None:
    few_labels_case(ws)
    # Plain PPI: 5/7 + mean(Y − f) = 5/7 + 2/8; its normal interval reaches past 1.
    estimate = 5 / 7 + 2 / 8
    rectifier = [0.0] * 3 + [1.0] * 2 + [0.0] * 3
    se = math.sqrt(
        statistics.variance([1.0] * 5 + [0.0] * 2) / 7 + statistics.variance(rectifier) / 8
    )
    assert (round(estimate, 3), round(estimate - Z * se, 3), round(estimate + Z * se, 3)) == (
        0.964,
        0.481,
        1.448,
    )
    data = ws.report()
    assert data["ppi_pass_rate"] == {
        "estimate": pytest.approx(estimate),
        "low": pytest.approx(estimate - Z * se),
        "high": 1.0,
        "clipped": True,
    }
    text = ws.invoke("calibrate").stdout
    assert (
        "pass rate, prediction-powered 0.964 [0.481, 1.000] (95%, 7 unlabelled; "
        "clipped to [0, 1])" in text.splitlines()
    )
    md = ws.invoke("calibrate", "--md").stdout
    assert (
        "| pass rate, prediction-powered | 0.964 [0.481, 1.000] (95%, 7 unlabelled; "
        "clipped to [0, 1]) |" in md.splitlines()
    )


def test_a_rogan_gladen_correction_past_1_is_clipped_and_said_so(ws: Workspace) -> None:
    # Humans pass 3 of 4, the judge fails one of those and the human fail; it passes all 5
    # unlabelled runs: raw 7/9, sensitivity 2/3, specificity 1, so (7/9 + 1 − 1) / (2/3) = 7/6.
    human = ["pass"] * 3 + ["fail"]
    judge = ["pass", "pass", "fail", "fail"]
    verdicts = [ws.verdict(f"r{i}", s) for i, s in enumerate(judge)]
    verdicts += [ws.verdict(f"u{i}", "pass") for i in range(5)]
    ws.write(verdicts, [ws.label(f"r{i}", h) for i, h in enumerate(human)])
    data = ws.report()
    assert (data["raw_pass_rate"], data["corrected_pass_rate"]) == (pytest.approx(7 / 9), 1.0)
    assert data["corrected_pass_rate_clipped"] is True
    # PPI: 5/5 + mean(Y − f) = 1 + 1/4, its whole interval clipped at 1 from above.
    assert data["ppi_pass_rate"]["estimate"] == 1.0
    assert data["ppi_pass_rate"]["high"] == 1.0
    assert data["ppi_pass_rate"]["clipped"] is True
    lines = ws.invoke("calibrate").stdout.splitlines()
    assert (
        "pass rate corrected (Rogan-Gladen) 1.000 (sensitivity 0.667, specificity 1.000; "
        "clipped to [0, 1])" in lines
    )


def test_rates_inside_0_1_are_not_marked_clipped(ws: Workspace) -> None:
    # calibrate's ten-run case three times over, and ten unlabelled runs: PPI 0.6 [0.241, 0.959].
    verdicts = [ws.verdict(f"r{i}", s) for i, s in enumerate(JUDGE * 3)]
    unlabelled = ["pass", "pass", "fail", "pass", "fail"] * 2
    verdicts += [ws.verdict(f"u{i}", s) for i, s in enumerate(unlabelled)]
    ws.write(verdicts, [ws.label(f"r{i}", h) for i, h in enumerate(HUMAN * 3)])
    data = ws.report()
    assert (round(data["ppi_pass_rate"]["low"], 3), round(data["ppi_pass_rate"]["high"], 3)) == (
        0.241,
        0.959,
    )
    assert data["corrected_pass_rate_clipped"] is False
    assert data["ppi_pass_rate"]["clipped"] is False
    assert "clipped" not in ws.invoke("calibrate").stdout


def test_a_prediction_powered_interval_wholly_past_1_is_undefined_with_its_reason(
    ws: Workspace,
) -> None:
    # Humans pass both labelled runs, the judge fails both and passes both others: PPI says
    # 1 + 1 = 2 with no spread, an interval that shares no point with [0, 1].
    verdicts = [ws.verdict("r0", "fail"), ws.verdict("r1", "fail")]
    verdicts += [ws.verdict("u0", "pass"), ws.verdict("u1", "pass")]
    ws.write(verdicts, [ws.label("r0", "pass"), ws.label("r1", "pass")])
    data = ws.report()
    assert data["ppi_pass_rate"] is None
    assert (data["corrected_pass_rate"], data["corrected_pass_rate_clipped"]) == (None, None)
    assert (
        "pass rate, prediction-powered undefined (its interval lies wholly outside [0, 1]: the "
        "judge's errors on the labelled runs do not fit its verdicts on the others)"
        in ws.invoke("calibrate").stdout.splitlines()
    )
