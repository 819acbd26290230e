"""Confidence from real judging: the simulated judge of the selective-judging test answers five
samples per run on the fake server, the real pipeline writes each verdict's confidence (the
share of samples agreeing), and calibrate's ECE and Brier score are those worked out here
from what the judge is known to do on each run."""

from __future__ import annotations

import json
import math
from pathlib import Path

from judgekit.testing import FakeLLMServer
from tests.calibration.test_selective_e2e import (
    N_RUNS,
    invoke,
    simulated_judge,
    workspace,
    wrong_samples,
)

__all__ = ["workspace"]  # the fixture, used by name


def known(i: int) -> tuple[float, bool]:
    """Run i's confidence (the majority's share of five samples) and whether the majority is
    right, from the simulated judge's wrong samples."""
    wrong = wrong_samples(i)
    return max(wrong, 5 - wrong) / 5, wrong < 3


def test_calibrate_measures_the_simulated_judges_calibration(workspace: Path) -> None:
    with FakeLLMServer(reply=simulated_judge()) as server:
        args = ["runs.jsonl", "--rubric", "rubrics/sel.yaml", "--base-url"]
        judged = invoke("judge", *args, server.openai_base_url, "--out", "out", "--no-store")
        assert judged.exit_code == 0, judged.output
    calibrate = ["calibrate", "--rubric", "rubrics/sel.yaml", "--verdicts", "out/verdicts.jsonl"]
    result = invoke(*calibrate, "--split", "all", "--no-store", "--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)["confidence_calibration"]
    runs = [known(i) for i in range(N_RUNS)]
    # sure and right on 120 runs; 0.8 sure on 40, right on 35; 0.6 sure on 40, right on 20
    by_confidence = {
        c: (sum(1 for k, _ in runs if k == c), sum(1 for k, r in runs if k == c and r))
        for c in (0.6, 0.8, 1.0)
    }
    assert by_confidence == {0.6: (40, 20), 0.8: (40, 35), 1.0: (120, 120)}
    ece = math.fsum(n / N_RUNS * abs(right / n - c) for c, (n, right) in by_confidence.items())
    brier = math.fsum((c - r) ** 2 for c, r in runs) / N_RUNS
    assert math.isclose(ece, 0.2 * 0.1 + 0.2 * 0.075, abs_tol=1e-15)
    assert math.isclose(figures["ece"], ece, abs_tol=1e-15)
    assert math.isclose(figures["brier"], brier, abs_tol=1e-15)
    assert figures["ece_ci"][0] <= ece <= figures["ece_ci"][1]
    assert [(b["count"], b["accuracy"]) for b in figures["bins"] if b["count"]] == [
        (40, 0.5),
        (40, 0.875),
        (120, 1.0),
    ]
    text = invoke(*calibrate, "--split", "all", "--no-store").output
    assert (
        "\n  bin         verdicts  mean confidence  accuracy\n"
        "  (0.5, 0.6]  40        0.600            0.500\n"
        "  (0.7, 0.8]  40        0.800            0.875\n"
        "  (0.9, 1]    120       1.000            1.000\n"
    ) in text
