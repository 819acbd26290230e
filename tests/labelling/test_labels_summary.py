"""``judgekit labels``: counts per labeller and class, and agreement between labellers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from tests.labelling.conftest import RUBRIC


def write_labels(folder: Path, rows: list[tuple[str, str, str]]) -> None:
    folder.mkdir(exist_ok=True)
    with (folder / "goal_completion.jsonl").open("w") as fh:
        for run_id, labeler, value in rows:
            fh.write(
                json.dumps(
                    {
                        "run_id": run_id,
                        "rubric_id": "goal_completion",
                        "label": value,
                        "labeler": labeler,
                        "at": "2026-11-29T10:00:00Z",
                    }
                )
                + "\n"
            )


def summary(folder: Path) -> dict[str, object]:
    done = CliRunner().invoke(
        main, ["labels", "--rubric", str(RUBRIC), "--labels-dir", str(folder), "--json"]
    )
    assert done.exit_code == 0, done.output
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_two_labellers_give_cohens_kappa(tmp_path: Path) -> None:
    # ana: pass pass fail fail, bob: pass fail fail fail on the shared runs.
    # p_o = 3/4, p_e = (2/4)(1/4) + (2/4)(3/4) = 1/2, kappa = (3/4 - 1/2) / (1 - 1/2) = 0.5.
    # bob's first r2 label is superseded; r5 is ana's alone and is not compared.
    write_labels(
        tmp_path,
        [
            ("r1", "ana", "pass"), ("r1", "bob", "pass"),
            ("r2", "ana", "pass"), ("r2", "bob", "pass"), ("r2", "bob", "fail"),
            ("r3", "ana", "fail"), ("r3", "bob", "fail"),
            ("r4", "ana", "fail"), ("r4", "bob", "fail"),
            ("r5", "ana", "pass"),
        ],
    )  # fmt: skip
    result = summary(tmp_path)
    assert result["labelers"] == {
        "ana": {"labels": 5, "classes": {"pass": 3, "fail": 2}, "stale": None},
        "bob": {"labels": 4, "classes": {"pass": 1, "fail": 3}, "stale": None},
    }
    assert result["runs_labelled"] == 5
    assert result["shared_runs"] == 4
    assert result["agreement"] == {"method": "cohen_kappa", "value": 0.5}


def test_three_labellers_give_krippendorffs_alpha(tmp_path: Path) -> None:
    # Coincidences: pp 4, ff 3, pf 1, fp 1; n = 9, n_p = 5, n_f = 4.
    # D_o = 2/9, D_e = 2 * 5 * 4 / (9 * 8) = 5/9, alpha = 1 - (2/9) / (5/9) = 0.6.
    write_labels(
        tmp_path,
        [
            ("r1", "ana", "pass"), ("r1", "bob", "pass"), ("r1", "cy", "pass"),
            ("r2", "ana", "fail"), ("r2", "bob", "fail"), ("r2", "cy", "fail"),
            ("r3", "ana", "pass"), ("r3", "bob", "pass"), ("r3", "cy", "fail"),
        ],
    )  # fmt: skip
    result = summary(tmp_path)
    agreement = result["agreement"]
    assert isinstance(agreement, dict)
    assert agreement["method"] == "krippendorff_alpha (nominal)"
    assert agreement["value"] == pytest.approx(0.6, abs=1e-12)


def test_one_label_throughout_is_undefined_not_zero(tmp_path: Path) -> None:
    write_labels(tmp_path, [("r1", "ana", "pass"), ("r1", "bob", "pass")])
    assert summary(tmp_path)["agreement"] == {"method": "cohen_kappa", "value": None}


def test_the_table_and_a_missing_file(tmp_path: Path) -> None:
    write_labels(tmp_path, [("r1", "ana", "pass"), ("r1", "bob", "fail")])
    done = CliRunner().invoke(
        main, ["labels", "--rubric", str(RUBRIC), "--labels-dir", str(tmp_path)]
    )
    assert done.exit_code == 0
    assert "agreement on 1 shared runs: cohen_kappa" in done.stdout
    missing = CliRunner().invoke(
        main, ["labels", "--rubric", str(RUBRIC), "--labels-dir", str(tmp_path / "none")]
    )
    assert missing.exit_code == 2
    assert "no labels for goal_completion yet" in missing.stderr
