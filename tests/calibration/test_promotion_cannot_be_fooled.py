"""Held-out promotion cannot be fooled by judgekit's own commands: a judge whose test kappa
is near 0 stays refused whatever is looked at, relabelled, edited or deleted first, through
the CLI. 240 runs, half pass and half fail; the judge flips 45% of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score  # type: ignore[import-untyped]

from judgekit._util.number_format import statistic
from judgekit.formats.split_file import read_split_file
from tests.calibration.promotion_world import World

NO_FRESH = (
    "judgekit: error: no fresh test labels for goal_completion: of 240 labelled runs, 120 "
    "are dev and 120 test (120 spent); `judgekit label` must add about 100 more labels for "
    "the 50 the policy asks (a share 0.5 of new labels goes to test)\n"
)


@pytest.fixture
def world(tmp_path: Path) -> World:
    world = World(tmp_path / "project")
    world.label(world.add_runs("r", 240, flipped=0.45, seed=1))
    return world


def held_out_kappa(world: World) -> float:
    runs = sorted(run for run, side in world.sides().items() if side == "test")
    kappa: float = cohen_kappa_score([world.human[r] for r in runs], [world.judge[r] for r in runs])
    return kappa


def refused_kappa_line(world: World) -> str:
    refused = world.invoke("promote")
    assert refused.exit_code == 1, refused.output
    assert "not promoted: 1 of 3 criteria not met" in refused.stdout
    return next(line for line in refused.stdout.splitlines() if "kappa is" in line)


def test_the_judge_is_refused_on_its_fresh_test_labels(world: World) -> None:
    kappa = held_out_kappa(world)
    assert kappa == pytest.approx(0.0833333, abs=1e-6)
    assert refused_kappa_line(world) == (
        f"more labels will not clear the kappa bar: kappa is {statistic(kappa)}, at or below "
        "the bar 0.6; improve the rubric or the judge"
    )


@pytest.mark.parametrize(
    ("side", "look"),
    [
        ("test", []),
        ("test", ["--json"]),
        ("test", ["--md"]),
        ("test", ["--disagreements", "all"]),
        ("test", ["--disagreements", "0"]),
        ("all", []),
    ],
    ids=["console", "json", "md", "all-disagreements", "no-disagreement-listed", "split-all"],
)
def test_any_look_at_the_test_labels_spends_every_one(
    world: World, look: list[str], side: str
) -> None:
    shown = world.invoke("calibrate", "--split", side, *look)
    assert shown.exit_code == 0, shown.output
    spent = read_split_file(world.split).spent
    assert sorted(spent) == sorted(run for run, s in world.sides().items() if s == "test")
    assert set(spent.values()) == {
        f"measured beside the judge's verdicts by calibrate --split {side}"
    }
    refused = world.invoke("promote")
    assert (refused.exit_code, refused.output) == (2, NO_FRESH)


def test_a_second_labeller_against_the_test_disagreements_is_shown_not_counted(
    world: World,
) -> None:
    # Bob labels every test disagreement the judge's way: ties, which left out would keep
    # only the agreements. Each test run counts with the label it was assigned with.
    kappa_line = refused_kappa_line(world)
    test = [run for run, side in world.sides().items() if side == "test"]
    against = sorted(world.disagreements(test))
    assert len(against) == 55
    world.label(against, labeler="bob", flip=True)
    refused = world.invoke("promote")
    assert refused.exit_code == 1, refused.output
    out = refused.stdout.splitlines()
    assert kappa_line in out
    assert out[-1] == (
        "55 test labels changed after their runs were assigned: counted as assigned ("
        + ", ".join(against[:10])
        + " and 45 more)"
    )


def test_relabelling_test_runs_later_is_shown_not_counted(world: World) -> None:
    kappa_line = refused_kappa_line(world)
    test = [run for run, side in world.sides().items() if side == "test"]
    world.label(world.disagreements(test), flip=True)  # ana "changes her mind" on each
    refused = world.invoke("promote", "--json")
    assert refused.exit_code == 1, refused.output
    assert json.loads(refused.stdout)["promoted"] is False
    assert kappa_line in world.invoke("promote").stdout.splitlines()


def test_labellers_who_tied_at_assignment_count_against_the_judge(tmp_path: Path) -> None:
    # Two labellers whose labels were made elsewhere, tied on 20 runs the judge gets right:
    # dropped, the ties would leave kappa at 1; counted against the judge, they lower it.
    world = World(tmp_path / "project")
    runs = world.add_runs("r", 240, flipped=0.0, seed=2)
    world.label(runs, imported=True)
    tied = runs[:40]
    world.label(tied, labeler="bob", flip=True, imported=True)
    report = world.invoke("calibrate", "--split", "all", "--json")
    assert report.exit_code == 0, report.output
    data = json.loads(report.stdout)
    test_tied = sorted(r for r in tied if world.sides()[r] == "test")
    assert data["split"]["test_tied"] == test_tied
    assert data["n_tied_against_judge"] == len(test_tied) == 20
    assert data["n_tied"] == 40 - 20  # dev ties are left out, as on dev they always were
    human = [
        ("fail" if world.judge[r] == "pass" else "pass") if r in test_tied else world.human[r]
        for r in sorted(world.sides())
        if r not in tied or r in test_tied
    ]
    judge = [world.judge[r] for r in sorted(world.sides()) if r not in tied or r in test_tied]
    assert data["kappa"] == pytest.approx(cohen_kappa_score(human, judge), abs=1e-12)


def test_a_split_file_edited_in_place_is_refused(world: World) -> None:
    text = world.split.read_text().splitlines()
    test = [run for run, side in world.sides().items() if side == "test"]
    moved = set(world.disagreements(test))
    edited = [
        line.replace('"side":"test"', '"side":"dev"')
        if json.loads(line).get("run_id") in moved
        else line
        for line in text
    ]
    world.split.write_text("\n".join(edited) + "\n")
    first = next(
        number for number, line in enumerate(edited, start=1) if json.loads(line)["run_id"] in moved
    )
    refused = world.invoke("promote")
    assert refused.exit_code == 2
    assert refused.output.startswith(f"judgekit: error: {world.split}:{first}: side: run ")
    assert refused.output.endswith(
        "the file was edited by hand; restore it from version control (a run never changes side)\n"
    )


def test_a_deleted_split_is_an_error_naming_how_to_recover(world: World) -> None:
    world.split.unlink()
    refused = world.invoke("promote")
    assert (refused.exit_code, refused.output) == (
        2,
        "judgekit: error: the split file is missing, but goal_completion's labels were split "
        "before: 240 labels were written by `judgekit label`, which splits as it labels (the "
        f"first: run 'r000' by 'ana'). Restore it (`git checkout -- {world.split}`, or from a "
        "backup): a new split would put runs already read on dev into test and forget which "
        "test labels were spent. To start a new split knowingly, pass --new-split to "
        "`judgekit calibrate` or `judgekit promote`: every test label it assigns is spent, "
        "so promotion waits for new labels\n",
    )
    assert not world.split.exists()
    started = world.invoke("promote", "--new-split")
    assert (started.exit_code, started.output) == (2, NO_FRESH)
    spent = read_split_file(world.split).spent
    assert len(spent) == 120
    assert set(spent.values()) == {
        "assigned by --new-split: whether it was read beside a verdict is unknown"
    }


def test_a_good_judge_is_still_promoted(tmp_path: Path) -> None:
    world = World(tmp_path / "project")
    world.label(world.add_runs("r", 240, flipped=0.05, seed=3))
    promoted = world.invoke("promote")
    assert promoted.exit_code == 0, promoted.output
    assert promoted.stdout.startswith(
        f"goal_completion (version {world.version}, judge openai/gpt-4o-mini) promoted on 120 "
        "fresh test labels"
    )
