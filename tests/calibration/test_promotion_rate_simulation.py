"""A judge of known kappa is promoted at the same rate whether or not someone read the test
labels beside its verdicts first (`calibrate --split test`), because that look spends every
test label it measured and promotion waits for new ones. Spending only the disagreements
shown would leave the agreements to decide, and promote a judge near kappa 0.3 nearly always:
selection on the outcome. Simulated over seeds on real files through the library calls the
commands make."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.calibration import load_calibration
from judgekit.calibration.load import spend_measured_test_labels
from judgekit.calibration.split import mark_spent
from tests.calibration.promotion_world import World

SEEDS = range(16)


def promote(world: World) -> tuple[bool, float | None]:
    report = load_calibration(
        world.rubric_model,
        labels_file=world.labels,
        verdicts_file=world.verdicts,
        measure_on="test",
        fresh_only=True,
    )
    return report.promotable, report.kappa


def peek(world: World) -> None:
    """`calibrate --split test`: measure the test labels and spend what the command spends."""
    report = load_calibration(
        world.rubric_model,
        labels_file=world.labels,
        verdicts_file=world.verdicts,
        measure_on="test",
    )
    spend_measured_test_labels(report)


def decisions(root: Path, flipped: float, seed: int) -> dict[str, tuple[bool, float | None]]:
    """Promotion of one judge, three ways: on 200 new runs alone; on the same 200 after 200
    others were labelled and looked at; and after a look that spent only its disagreements."""
    alone = World(root / "alone")
    alone.label(alone.add_runs("b", 200, flipped=flipped, seed=seed), imported=True)

    looked = World(root / "looked")
    looked.label(looked.add_runs("a", 200, flipped=flipped, seed=seed + 1000), imported=True)
    peek(looked)
    looked.label(looked.add_runs("b", 200, flipped=flipped, seed=seed), imported=True)

    selected = World(root / "selected")
    selected.label(selected.add_runs("b", 200, flipped=flipped, seed=seed), imported=True)
    report = load_calibration(
        selected.rubric_model,
        labels_file=selected.labels,
        verdicts_file=selected.verdicts,
        measure_on="test",
    )
    shown = [d.run_id for d in report.disagreements]
    mark_spent(selected.split, shown, "shown as a disagreement")  # the disagreements only
    return {"alone": promote(alone), "looked": promote(looked), "selected": promote(selected)}


@pytest.mark.parametrize(("flipped", "kappa"), [(0.35, 0.3), (0.1, 0.8)])
def test_looking_at_the_test_labels_first_changes_no_promotion(
    tmp_path: Path, flipped: float, kappa: float
) -> None:
    outcomes = [decisions(tmp_path / str(seed), flipped, seed) for seed in SEEDS]
    # The look spent the first 200 runs' test labels; the second 200's are assigned as if
    # the first never existed (each class's sides were even), so every decision is the same.
    assert [o["looked"] for o in outcomes] == [o["alone"] for o in outcomes]
    measured = [k for o in outcomes for _, k in [o["alone"]] if k is not None]
    assert sum(measured) / len(measured) == pytest.approx(kappa, abs=0.06)
    rate = sum(o["alone"][0] for o in outcomes) / len(outcomes)
    selected = sum(o["selected"][0] for o in outcomes) / len(outcomes)
    if kappa == 0.3:
        assert (rate, selected) == (0.0, 1.0)  # every seed promoted once disagreements go
    else:
        assert 0.0 < rate < 1.0 and selected == 1.0
