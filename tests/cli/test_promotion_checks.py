"""A promotion record is trusted only while it holds: hand edits, a split or labels file
edited in place, a deleted split file make the rubric *invalid* in `judgekit rubrics`, and
the monitor and the gate then treat it as not promoted; labels appended after promotion
keep it promoted."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.store import open_store
from tests.conftest import REPO
from tests.gate.test_gate_store import two_batches, verdicts
from tests.promoted import promote_for_real

RECORD = Path("rubrics/goal_completion.promotion.json")
LABELS = Path("labels/goal_completion.jsonl")
SPLIT = Path("labels/goal_completion.split.jsonl")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """goal_completion promoted (and recorded in the store) on 120 test labels, its judge
    wrong on 8 of them; the record as written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rubrics").mkdir()
    shutil.copy(REPO / "rubrics" / "goal_completion.yaml", tmp_path / "rubrics")
    human = {f"t{i}": "pass" if i % 2 else "fail" for i in range(120)}
    judged = {r: ("pass" if i < 8 else h) for i, (r, h) in enumerate(human.items())}
    record = promote_for_real(
        tmp_path / "rubrics" / "goal_completion.yaml", human, judged, store=True
    )
    return record


def status() -> tuple[str, str]:
    result = CliRunner().invoke(main, ["rubrics", "--json"])
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)["rubrics"]
    return row["status"], row["why"]


def rubrics_line() -> str:
    result = CliRunner().invoke(main, ["rubrics"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()[-1]


def edited(record: dict[str, Any], change: Callable[[dict[str, Any]], Any]) -> None:
    data = json.loads(json.dumps(record))
    change(data)
    RECORD.write_text(json.dumps(data, indent=2))


def test_the_record_as_promoted_holds(project: dict[str, Any]) -> None:
    assert project["n"] == 120
    assert round(project["kappa"], 3) == 0.933
    assert rubrics_line() == "goal_completion: promoted, calibrated on 120 fresh test labels"


HAND_EDITS: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "kappa 0.1": (
        lambda r: r.update(kappa=0.1),
        "kappa 0.1 in the record, 0.933 recomputed from its 120 pairs",
    ),
    "met false": (
        lambda r: r["criteria"]["min_kappa"].update(met=False),
        "the record says min_kappa is not met",
    ),
    "n 3": (lambda r: r.update(n=3), "n 3 in the record, 120 pairs in its evidence"),
    "four fields": (
        lambda r: [
            r.pop(k)
            for k in list(r)
            if k not in ("rubric_id", "rubric_version", "promotable", "model")
        ],
        "written without evidence (by an older judgekit, or by hand); promote again",
    ),
}


@pytest.mark.parametrize("edit", list(HAND_EDITS))
def test_a_hand_edited_record_is_invalid_and_neither_monitored_nor_gating(
    project: dict[str, Any], edit: str
) -> None:
    change, why = HAND_EDITS[edit]
    edited(project, change)
    assert status() == ("invalid", why)
    assert rubrics_line() == f"goal_completion: invalid, {why}"
    assert_not_promoted_by_monitor_and_gate(why)


def test_the_version_of_an_edited_rubric_written_into_the_record_is_invalid(
    project: dict[str, Any],
) -> None:
    rubric_file = Path("rubrics/goal_completion.yaml")
    rubric_file.write_text(rubric_file.read_text().replace("temperature: 0", "temperature: 0.2"))
    version = rubric_version(load_rubric(rubric_file))
    assert status() == ("stale", f"promoted at version {project['rubric_version']}, now {version}")
    edited(project, lambda r: r.update(rubric_version=version))
    why = "its digest is not that of its content: it was edited after promotion"
    assert status() == ("invalid", why)
    assert_not_promoted_by_monitor_and_gate(why, version=version)


def assert_not_promoted_by_monitor_and_gate(why: str, *, version: str | None = None) -> None:
    """The monitor shows the rubric informational, saying why; the gate does not fail on
    its drop from 0.80 to 0.60 (it would, promoted)."""
    version = version or rubric_version(load_rubric("rubrics/goal_completion.yaml"))
    with open_store() as store:
        main_batch, pr_batch = two_batches(store)
        store.record_verdicts(verdicts("goal_completion", version, "m", 100, 80), main_batch)
        store.record_verdicts(verdicts("goal_completion", version, "p", 100, 60), pr_batch)
    monitored = CliRunner().invoke(main, ["monitor", "--rubric", "rubrics", "--json"])
    assert monitored.exit_code == 0, monitored.output
    report = json.loads(monitored.stdout)
    [line] = report["rubrics"]
    assert (line["status"], line["reason"]) == ("invalid", why)
    [series] = [s for s in report["series"] if s["metric"] == "rubric:goal_completion"]
    assert series["role"] == "informational"
    assert series["note"].startswith(f"informational: invalid ({why}); only promoted rubrics alert")
    gated = CliRunner().invoke(
        main,
        [
            "gate",
            "--baseline",
            "latest:main",
            "--candidate",
            f"batch:{pr_batch}",
            "--rubric",
            "rubrics",
        ],
    )
    assert gated.exit_code == 0, gated.output
    assert (
        "note rubric goal_completion (invalid, informational): 0.80 (80/100) → 0.60 (60/100), "
        f"one-sided p = 0.001; its promotion record does not hold: {why}"
    ) in gated.stdout.splitlines()


def test_a_test_line_of_the_split_moved_to_dev_in_place_is_invalid(
    project: dict[str, Any],
) -> None:
    text = SPLIT.read_text()
    SPLIT.write_text(
        text.replace('"run_id": "t9", "side": "test"', '"run_id": "t9", "side": "dev "')
    )
    length = project["sources"]["split"]["length"]
    assert status() == (
        "invalid",
        f"{SPLIT} changed since promotion (its first {length:,} bytes no longer match)",
    )


def test_the_labels_file_edited_in_place_is_invalid(project: dict[str, Any]) -> None:
    LABELS.write_text(LABELS.read_text().replace('"label": "pass"', '"label": "fail"', 1))
    length = project["sources"]["labels"]["length"]
    assert status() == (
        "invalid",
        f"{LABELS} changed since promotion (its first {length:,} bytes no longer match)",
    )


def test_labels_appended_after_promotion_keep_it_promoted(project: dict[str, Any]) -> None:
    row = {"run_id": "t200", "rubric_id": "goal_completion", "label": "pass"}
    row |= {"labeler": "bo", "at": "2026-12-01T10:00:00+00:00"}
    with LABELS.open("a") as fh:
        fh.write(json.dumps(row) + "\n")
    with SPLIT.open("a") as fh:
        fh.write(json.dumps({"run_id": "t9", "spent": "shown", "at": row["at"]}) + "\n")
    assert status() == ("promoted", "calibrated on 120 fresh test labels")


def test_a_deleted_split_file_is_invalid_naming_the_recovery(project: dict[str, Any]) -> None:
    SPLIT.unlink()
    length = project["sources"]["split"]["length"]
    assert length == 12_610  # as docs/explanation/calibration.md shows
    assert status() == (
        "invalid",
        f"{SPLIT} is missing (the promotion was computed from its first {length:,} bytes); "
        "restore it from version control, or label, calibrate and promote again",
    )


def test_promote_does_not_keep_a_record_that_did_not_hold_as_previous(
    project: dict[str, Any],
) -> None:
    edited(project, lambda r: r.update(kappa=0.1, rubric_version="0" * 12))
    args = ["promote", "--rubric", "goal_completion", "--no-store"]
    args += ["--verdicts", "goal_completion.promoted-verdicts.jsonl"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "the promotion record it replaces did not hold (kappa 0.1 in the record, 0.933 "
        "recomputed from its 120 pairs): not kept as the previous promotion"
    ]
    record = json.loads(RECORD.read_text())
    assert "previous" not in record
    assert status() == ("promoted", "calibrated on 120 fresh test labels")


def test_a_record_that_does_not_hold_is_not_rechecked(project: dict[str, Any]) -> None:
    edited(project, lambda r: r.update(kappa=0.1))
    result = CliRunner().invoke(main, ["recheck", "goal_completion"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"judgekit: error: {RECORD}: the promotion record does not hold (kappa 0.1 in the "
        "record, 0.933 recomputed from its 120 pairs): only a promoted rubric can be "
        "rechecked\n"
    )
