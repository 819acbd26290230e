"""Every rate in the ``--json`` of ``calibrate``, ``grade``, ``gate`` and ``monitor`` — and both
bounds of its interval — lies in [0, 1] (a difference of rates in [-1, 1]) on adversarial
input: everything passed or failed, judge and humans all agreeing or all disagreeing, one
run, one class. Which numbers are rates is the rule of :mod:`tests.rate_fields`; each test
also checks that the rule found the command's rates, so a renamed key cannot slip past."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.verdict import Verdict
from judgekit.store import open_store
from tests.cli.test_calibrate_cli import Workspace
from tests.conftest import REPO
from tests.rate_fields import out_of_range, rate_keys

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
TASKS = REPO / "tasks"


def invoke(*args: str | Path, codes: tuple[int, ...] = (0,)) -> dict[str, Any]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code in codes, (result.output, result.exception)
    document: dict[str, Any] = json.loads(result.stdout)
    return document


@pytest.fixture
def runs_files(tmp_path: Path) -> dict[str, Path]:
    """The shop's runs, and files of its passing runs, its failing runs and one of each."""
    graded = invoke("grade", SHOP_RUNS, "--tasks", TASKS, "--out", tmp_path, "--no-store", "--json")
    assert (graded["runs"], graded["passed"]) == (18, 5)
    passed = {
        row["run_id"]: row["passed"]
        for row in map(json.loads, (tmp_path / "results.jsonl").read_text().splitlines())
    }
    lines = SHOP_RUNS.read_text(encoding="utf-8").splitlines()
    passing = [line for line in lines if passed[json.loads(line)["run_id"]]]
    failing = [line for line in lines if not passed[json.loads(line)["run_id"]]]
    files = {
        "shop": [*lines],
        "all passed": passing,
        "all failed": failing,
        "one passed": passing[:1],
        "one failed": failing[:1],
    }
    paths = {}
    for name, chosen in files.items():
        paths[name] = tmp_path / f"{name.replace(' ', '_')}.jsonl"
        paths[name].write_text("".join(line + "\n" for line in chosen), encoding="utf-8")
    return paths


def assert_rates_in_range(document: dict[str, Any]) -> None:
    assert out_of_range(document) == []


def test_grade_json_rates_stay_in_0_1(runs_files: dict[str, Path], tmp_path: Path) -> None:
    found: set[str] = set()
    for name, path in runs_files.items():
        for k in ("1", "3"):  # k = 3 is beyond the one-run files: pass@k undefined there
            out = tmp_path / "grade" / name / k
            report = invoke(
                "grade", path, "--tasks", TASKS, "--out", out, "--no-store", "--json", "--k", k
            )
            assert_rates_in_range(report)
            found |= rate_keys(report)
    assert found == {"pass_at_1", "pass_at_1_ci", "pass_at_k", "pass_hat_k", "tool_error_rate"}


def test_gate_json_rates_and_differences_stay_in_range(
    runs_files: dict[str, Path], tmp_path: Path
) -> None:
    results = {}
    for name, path in runs_files.items():
        results[name] = tmp_path / "results" / name
        invoke("grade", path, "--tasks", TASKS, "--out", results[name], "--no-store", "--json")
    found: set[str] = set()
    pairs = [
        ("all passed", "all failed"),  # every task drops from 1 to 0: difference -1
        ("all failed", "all passed"),
        ("one passed", "one failed"),
        ("one failed", "one failed"),
        ("shop", "shop"),
    ]
    for baseline, candidate in pairs:
        report = invoke(
            "gate",
            "--baseline",
            results[baseline],
            "--candidate",
            results[candidate],
            "--json",
            codes=(0, 1),
        )
        assert_rates_in_range(report)
        found |= rate_keys(report)
    assert found == {"rate"}
    drop = invoke(
        "gate",
        "--baseline",
        results["all passed"],
        "--candidate",
        results["all failed"],
        "--json",
        codes=(1,),
    )
    assert drop["suite"]["difference"] == -1.0


def test_gate_json_rubric_pass_rates_stay_in_0_1(
    runs_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "calibration").mkdir()
    ws = Workspace(tmp_path / "calibration")
    shutil.copytree(ws.root / "rubrics", tmp_path / "rubrics")
    batches = {}
    for name in ("all passed", "all failed", "one failed"):
        invoke("grade", runs_files[name], "--tasks", TASKS, "--out", tmp_path / name, "--json")
        with open_store() as store:
            batches[name] = store.batches()[-1].id
            run_ids = [
                json.loads(line)["run_id"] for line in runs_files[name].read_text().splitlines()
            ]
            score = "pass" if name == "all passed" else "fail"
            store.record_verdicts(
                [Verdict.model_validate(ws.verdict(r, score)) for r in run_ids], batches[name]
            )
    found: set[str] = set()
    rubric_rates = []
    for baseline, candidate in [("all passed", "all failed"), ("all failed", "one failed")]:
        report = invoke(
            "gate",
            "--baseline",
            f"batch:{batches[baseline]}",
            "--candidate",
            f"batch:{batches[candidate]}",
            "--rubric",
            "goal_completion",
            "--json",
            codes=(0, 1),
        )
        assert_rates_in_range(report)
        found |= rate_keys(report)
        [rubric] = report["rubrics"]
        rubric_rates.append((rubric["baseline"]["rate"], rubric["candidate"]["rate"]))
    assert found == {"rate"}
    assert rubric_rates == [(1.0, 0.0), (0.0, 0.0)]  # the judge's pass share on each side


def test_monitor_json_rates_stay_in_0_1(
    runs_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rubrics").mkdir()
    shutil.copy(REPO / "rubrics" / "goal_completion.yaml", tmp_path / "rubrics")
    (tmp_path / "calibration").mkdir()
    ws = Workspace(tmp_path / "calibration")  # for its verdict rows of goal_completion
    verdicts: list[dict[str, Any]] = []
    for name in ("all passed", "one passed", "all failed"):
        invoke("grade", runs_files[name], "--tasks", TASKS, "--out", tmp_path / name, "--json")
        run_ids = [json.loads(line)["run_id"] for line in runs_files[name].read_text().splitlines()]
        score = "fail" if name == "all failed" else "pass"
        judged = {v["run_id"] for v in verdicts}  # a run graded again is judged once
        verdicts += [ws.verdict(r, score) for r in run_ids if r not in judged]
    (tmp_path / "verdicts.jsonl").write_text("".join(json.dumps(v) + "\n" for v in verdicts))
    result = CliRunner().invoke(main, ["store", "import", str(tmp_path / "verdicts.jsonl")])
    assert result.exit_code == 0, result.output
    found: set[str] = set()
    for by in ("batch", "day"):
        report = invoke("monitor", "--json", "--by", by, "--min-n", "1", codes=(0, 1))
        assert_rates_in_range(report)
        found |= rate_keys(report)
        assert any(s["metric"] == "rubric:goal_completion" for s in report["series"])
    assert found == {"value", "low", "high"}
    batches = invoke("monitor", "--json", "--by", "batch", "--min-n", "1", codes=(1,))
    assert [a["metric"] for a in batches["alerts"]][:1] == ["pass_rate"]


def calibration_cases(ws: Workspace, case: str) -> None:
    """Labels and verdicts of one adversarial case, written to ``ws``."""
    human, judge, unlabelled = {
        # enough runs for a selective threshold: agreement on the kept verdicts is 1
        "all agree": (["pass"] * 20 + ["fail"] * 20, ["pass"] * 20 + ["fail"] * 20, ["pass"] * 2),
        "all disagree": (["pass"] * 3 + ["fail"] * 3, ["fail"] * 3 + ["pass"] * 3, ["pass"] * 2),
        "one run": (["pass"], ["fail"], ["pass"] * 3),
        "humans pass everything": (["pass"] * 6, ["pass"] * 4 + ["fail"] * 2, ["pass"] * 5),
        "humans fail everything": (["fail"] * 6, ["pass"] * 2 + ["fail"] * 4, ["fail"] * 5),
        "few labels, PPI past 1": (
            ["pass"] * 5 + ["fail"] * 3,
            ["pass"] * 3 + ["fail"] * 5,
            ["pass"] * 5 + ["fail"] * 2,
        ),
        "Rogan-Gladen past 1": (["pass"] * 3 + ["fail"], ["pass"] * 2 + ["fail"] * 2, ["pass"] * 5),
        "PPI wholly past 1": (["pass"] * 2, ["fail"] * 2, ["pass"] * 2),
    }[case]
    # Sampled five times, so the judge's agreement with itself and the selective figures
    # (coverage, the guaranteed agreement) are in the report too.
    verdicts = [
        ws.verdict(f"r{i}", s, samples=[s] * 4 + ["fail" if s == "pass" else "pass"])
        for i, s in enumerate(judge)
    ]
    verdicts += [ws.verdict(f"u{i}", s, samples=[s] * 5) for i, s in enumerate(unlabelled)]
    ws.write(verdicts, [ws.label(f"r{i}", h) for i, h in enumerate(human)])


CALIBRATION_CASES = [
    "all agree",
    "all disagree",
    "one run",
    "humans pass everything",
    "humans fail everything",
    "few labels, PPI past 1",
    "Rogan-Gladen past 1",
    "PPI wholly past 1",
]


def test_calibrate_json_rates_stay_in_0_1(tmp_path: Path) -> None:
    found: set[str] = set()
    clipped = []
    for index, case in enumerate(CALIBRATION_CASES):
        (tmp_path / str(index)).mkdir()
        ws = Workspace(tmp_path / str(index))
        calibration_cases(ws, case)
        report = ws.report("--split", "all")
        assert out_of_range(report) == [], case
        found |= rate_keys(report)
        ppi = report["ppi_pass_rate"]
        clipped.append((report["corrected_pass_rate_clipped"], ppi and ppi["clipped"]))
    assert found == {
        "accuracy",
        "agreement",
        "agreement_on_kept",
        "agreement_with_judge",
        "brier",
        "brier_ci",
        "corrected_pass_rate",
        "coverage",
        "ece",
        "ece_ci",
        "estimate",
        "false_fail_ci",
        "false_fail_rate",
        "false_pass_ci",
        "false_pass_rate",
        "guaranteed_agreement",
        "high",
        "low",
        "mean",
        "mean_confidence",
        "raw_pass_rate",
        "sensitivity",
        "specificity",
        "unscored_rate",
    }
    assert clipped == [
        (False, False),
        (None, True),  # all disagree: the judge is worse than chance, no Rogan-Gladen
        (None, None),
        (None, True),  # humans pass everything: no specificity; PPI 1 + 1/3
        (None, True),  # humans fail everything: PPI 0 − 1/3
        (False, True),
        (True, True),
        (None, None),
    ]
