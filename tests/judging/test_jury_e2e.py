"""A majority jury of three simulated judges that err independently at 0.10, 0.15 and 0.20,
served by one fake server and asked through the real openai and anthropic SDKs, on 1,000
labelled runs: each juror errs at its rate, the jury at the rate theory gives a majority of
three (p1p2 + p1p3 + p2p3 - 2 p1p2p3 = 0.059), below its best juror; calibrate shows every
juror's figures and the paired comparison, and promote promotes the jury as one judge."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy.stats import binomtest

from tests.judging.jury_world import RATES, JuryWorld, asked

N = 1000
P1, P2, P3 = RATES.values()
THEORY = P1 * P2 + P1 * P3 + P2 * P3 - 2 * P1 * P2 * P3
JURY = "jury:majority(anthropic/b,openai/a,openai/c)"


# Four rates are checked at once: each at 1 - 0.05/4, so that all four hold together with 95%
# probability (Bonferroni); the two-sided normal quantile of 1 - 0.05/8.
Z = 2.4977


def within_binomial(errors: int, n: int, rate: float) -> bool:
    """``errors`` of ``n`` is inside the binomial range of a true ``rate`` (normal
    approximation, ``Z`` standard errors)."""
    half = Z * math.sqrt(rate * (1 - rate) / n)
    return rate - half <= errors / n <= rate + half


def test_a_majority_jury_errs_less_than_its_best_juror(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert round(THEORY, 3) == 0.059
    world = JuryWorld(tmp_path, N)
    with world.serving(monkeypatch) as server:
        judged = world.judge_runs("--concurrency", "16")
    assert judged.exit_code == 0, judged.output
    # Every juror asked about every run once, through its own API.
    assert asked(server) == {"openai/a": N, "anthropic/b": N, "openai/c": N}
    verdicts = world.verdicts()
    assert len(verdicts) == N and {v["model"] for v in verdicts} == {JURY}
    wrong = {model: 0 for model in RATES}
    jury_wrong = 0
    for verdict in verdicts:
        truth = "pass" if world.truth[verdict["run_id"]] else "fail"
        for juror in verdict["jurors"]:
            wrong[juror["model"]] += juror["score"] != truth
        jury_wrong += verdict["score"] != truth
    assert wrong == {"openai/a": 106, "anthropic/b": 149, "openai/c": 175}
    assert jury_wrong == 55
    for model, rate in RATES.items():
        assert within_binomial(wrong[model], N, rate), model
    assert within_binomial(jury_wrong, N, THEORY)
    assert jury_wrong < min(wrong.values())

    world.write_labels()
    calibrated = world.invoke("calibrate")
    assert calibrated.exit_code == 0, calibrated.output
    shown = calibrated.output.splitlines()
    start = shown.index(f"jurors of {JURY}, on the runs shown:")
    assert shown[start + 1 : start + 8] == [
        "  openai/a     n 500, agreement 0.892, kappa 0.784 [0.730, 0.838], false pass 0.11 "
        "[0.08, 0.16], false fail 0.10 [0.07, 0.15]",
        "  anthropic/b  n 500, agreement 0.854, kappa 0.708 [0.646, 0.770], false pass 0.16 "
        "[0.12, 0.21], false fail 0.13 [0.09, 0.18]",
        "  openai/c     n 500, agreement 0.830, kappa 0.660 [0.594, 0.726], false pass 0.19 "
        "[0.15, 0.25], false fail 0.15 [0.11, 0.20]",
        "  jury         n 500, agreement 0.940, kappa 0.880 [0.838, 0.922], false pass 0.08 "
        "[0.06, 0.12], false fail 0.04 [0.02, 0.07]",
        "best juror: openai/a (the highest kappa on the runs shown)",
        "jury vs best juror, 500 runs both scored: kappa 0.880 vs 0.784, difference 0.096 "
        "[0.044, 0.148] (95%, paired bootstrap, 2000 resamples, seed 0)",
        "  accuracy 0.940 vs 0.892; only the jury right 33, only openai/a right 9; McNemar "
        "exact p = 0.0003",
    ]
    report = json.loads(world.invoke("calibrate", "--json").output)
    jury = report["jury"]
    assert report["model"] == JURY and report["n"] == 500
    assert [(j["model"], j["n"], j["agreement"]) for j in jury["jurors"]] == [
        ("openai/a", 500, 0.892),
        ("anthropic/b", 500, 0.854),
        ("openai/c", 500, 0.83),
    ]
    assert (jury["jury"]["agreement"], jury["best_juror"]) == (0.94, "openai/a")
    paired = jury["against_best_juror"]
    assert (paired["only_a_correct"], paired["only_b_correct"]) == (9, 33)
    assert paired["kappa_difference"] == pytest.approx(0.096)
    assert paired["kappa_difference_ci"] == pytest.approx([0.044031, 0.147897], abs=1e-6)
    assert paired["mcnemar_p"] == pytest.approx(0.000271539, rel=1e-6)
    # McNemar's exact test is the binomial test of the discordant runs.
    assert paired["mcnemar_p"] == pytest.approx(binomtest(9, 42, 0.5).pvalue, rel=1e-9)

    promoted = world.invoke("promote")
    assert promoted.exit_code == 0, promoted.output
    assert promoted.output.startswith(
        f"jury (version {report['rubric_version']}, judge {JURY}) promoted on 500 fresh test "
        "labels, kappa 0.900 [0.862, 0.938]"
    )
    record = json.loads((world.rubric.parent / "jury.promotion.json").read_text())
    assert record["model"] == JURY
    assert [juror["model"] for juror in record["judge"]["jury"]] == list(RATES)
