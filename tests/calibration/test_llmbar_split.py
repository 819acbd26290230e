"""The dev/test split on LLMBar's real data (the MT-Bench expert subset judged by GPT-4,
Vanilla_NoRules: 200 items): calibrate measures dev, promotion measures only the fresh test
labels, and --split test spends every test label it measures. Skipped without
../shared/data."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from sklearn.metrics import cohen_kappa_score  # type: ignore[import-untyped]

from judgekit.calibration import load_calibration
from judgekit.cli import main
from judgekit.errors import CalibrationError
from judgekit.formats.label import read_labels
from judgekit.formats.rubric_file import effective_rubric, load_rubric
from judgekit.formats.split_file import read_split_file
from judgekit.formats.verdict import load_verdicts
from tests.conftest import REPO, shared_data_path

MODEL = "llmbar/GPT-4"
TEST_KAPPA = 0.534831  # the 99 held-out test labels: lower than dev's 0.644


@pytest.fixture
def llmbar(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The rubric, the verdicts and the labels of the subset, converted by the example."""
    out = tmp_path / "llmbar"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "examples" / "llmbar" / "to_judgekit.py"),
            "--data",
            str(shared_data_path("llmbar", "verdicts.jsonl")),
            "--published",
            str(shared_data_path("llmbar", "published_statistics.jsonl")),
            "--dataset",
            "Processed/MT-Bench",
            "--evaluator",
            "GPT-4",
            "--strategy",
            "Vanilla_NoRules",
            "--out",
            str(out),
        ],
        capture_output=True,
        check=True,
    )
    rubric = tmp_path / "rubrics" / "preference.yaml"
    rubric.parent.mkdir()
    shutil.copy(REPO / "rubrics" / "preference.yaml", rubric)
    return rubric, out / "verdicts.jsonl", out / "labels" / "preference.jsonl"


def test_llmbar_dev_and_fresh_test_kappas(llmbar: tuple[Path, Path, Path]) -> None:
    rubric_file, verdicts, labels = llmbar
    args = ["calibrate", "--rubric", str(rubric_file), "--verdicts", str(verdicts)]
    args += ["--labels", str(labels), "--model", MODEL, "--no-store"]
    dev = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
    # 101 A and 99 B human labels, split by class: dev A 51, B 50; test A 50, B 49.
    assert dev["measured_on"] == "dev"
    assert dev["split"] == {
        "file": str(labels.with_name("preference.split.jsonl")),
        "test_share": 0.5,
        "n_dev": 101,
        "n_test": 99,
        "n_test_fresh": 99,
        "n_test_spent": 0,
        "test_relabelled": [],
        "test_tied": [],
    }
    assert dev["n"] == 101 and dev["class_balance"]["human"] == {"A": 51, "B": 50, "tie": 0}

    rubric = effective_rubric(load_rubric(rubric_file), MODEL)
    split = read_split_file(labels.with_name("preference.split.jsonl"))
    sides = {run: line.side for run, line in split.assignments.items()}
    human = {run: lab.label for (run, _), lab in read_labels(labels, rubric).current.items()}
    judge = {v.run_id: v.score for v in load_verdicts(verdicts) if v.model == MODEL}
    for side, report_kappa in (("dev", dev["kappa"]), ("test", None)):
        runs = sorted(run for run, s in sides.items() if s == side)
        kappa = cohen_kappa_score([human[r] for r in runs], [judge[r] for r in runs])
        if report_kappa is not None:
            assert report_kappa == pytest.approx(kappa, abs=1e-12)
            assert kappa == pytest.approx(0.643809, abs=5e-7)
        else:
            assert kappa == pytest.approx(TEST_KAPPA, abs=5e-7)

    # Promotion measures the 99 fresh test labels, never the dev ones.
    promote = load_calibration(
        rubric, labels_file=labels, verdicts_file=verdicts, measure_on="test", fresh_only=True
    )
    fresh = sorted(run for run, s in sides.items() if s == "test")
    assert promote.n == 99 and list(promote.split.runs if promote.split else ()) == fresh
    assert promote.kappa == pytest.approx(TEST_KAPPA, abs=5e-7)

    # Reading the test side spends all 99 test labels, the 23 disagreements and the 76
    # agreements alike: promotion then has none left, rather than the 76 agreements.
    console = CliRunner().invoke(main, [*args, "--split", "test"])
    assert console.exit_code == 0, console.output
    assert console.stdout.splitlines()[1] == (
        "measured on test: 99 of 200 labelled runs (99 fresh, 0 spent); every test label "
        "measured is now spent: `judgekit promote` no longer counts them"
    )
    assert "disagreements: 23 (10 shown, natural order of run id)" in console.stdout
    spent = read_split_file(labels.with_name("preference.split.jsonl")).spent
    assert sorted(spent) == fresh
    assert set(spent.values()) == {"measured beside the judge's verdicts by calibrate --split test"}
    with pytest.raises(CalibrationError, match=r"101 are dev and 99 test \(99 spent\)"):
        load_calibration(
            rubric, labels_file=labels, verdicts_file=verdicts, measure_on="test", fresh_only=True
        )
