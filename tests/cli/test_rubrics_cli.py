"""`judgekit rubrics`: versions and statuses, promoted only while the record matches."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from tests.conftest import REPO
from tests.promoted import balanced, promote_for_real


def listing(folder: Path) -> dict[str, dict[str, str]]:
    result = CliRunner().invoke(main, ["rubrics", "--dir", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    return {row["id"]: row for row in json.loads(result.stdout)["rubrics"]}


def test_statuses_follow_the_promotion_record(tmp_path: Path) -> None:
    folder = tmp_path / "rubrics"
    shutil.copytree(REPO / "rubrics", folder)
    version = rubric_version(load_rubric(folder / "goal_completion.yaml"))
    assert listing(folder)["goal_completion"] == {
        "id": "goal_completion",
        "version": version,
        "scale": "binary",
        "model": "openai/gpt-4o-mini",
        "status": "draft",
        "why": "not calibrated yet",
    }
    record = folder / "goal_completion.promotion.json"
    record.write_text(json.dumps({"rubric_version": version, "promotable": True, "n": 60}))
    assert listing(folder)["goal_completion"]["status"] == "invalid"  # no evidence
    record.write_text(json.dumps({"rubric_version": version, "promotable": False}))
    assert listing(folder)["goal_completion"]["status"] == "draft"
    promote_for_real(folder / "goal_completion.yaml", balanced())
    assert listing(folder)["goal_completion"]["status"] == "promoted"
    rubric_file = folder / "goal_completion.yaml"
    rubric_file.write_text(rubric_file.read_text().replace("temperature: 0", "temperature: 0.2"))
    row = listing(folder)["goal_completion"]
    assert row["status"] == "stale"
    assert row["why"] == f"promoted at version {version}, now {row['version']}"


def test_why_says_the_labels_were_held_out(tmp_path: Path) -> None:
    folder = tmp_path / "rubrics"
    shutil.copytree(REPO / "rubrics", folder)
    promote_for_real(folder / "goal_completion.yaml", balanced())
    assert listing(folder)["goal_completion"]["why"] == "calibrated on 60 fresh test labels"


def test_an_older_record_without_evidence_is_invalid_saying_to_promote_again(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "rubrics"
    shutil.copytree(REPO / "rubrics", folder)
    version = rubric_version(load_rubric(folder / "goal_completion.yaml"))
    older = {"rubric_version": version, "promotable": True, "n": 60, "kappa": 0.8}
    (folder / "goal_completion.promotion.json").write_text(json.dumps(older))
    assert listing(folder)["goal_completion"] == {
        "id": "goal_completion",
        "version": version,
        "scale": "binary",
        "model": "openai/gpt-4o-mini",
        "status": "invalid",
        "why": "written without evidence (by an older judgekit, or by hand); promote again",
    }
