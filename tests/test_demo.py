"""`judgekit demo`: the whole flow offline, with no API key, in well under a minute."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import judgekit.demo as demo
from judgekit.cli import main
from judgekit.demo import CAREFUL, JUDGES, SLOPPY, SimulatedJudge
from judgekit.errors import ConfigError

FALSE_PASS = re.compile(
    r"(?P<judge>[\w-]+): false-pass rate set (?P<set>[\d.]+), measured (?P<measured>[\d.]+) "
    r"\(95% CI (?P<low>[\d.]+)–(?P<high>[\d.]+)\)"
)


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path, float]:
    tmp = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("OPENAI_API_KEY", raising=False)
        patch.delenv("JUDGEKIT_DB", raising=False)
        patch.setenv("JUDGEKIT_HOME", str(tmp / "home"))
        patch.chdir(tmp)  # the demo finds the repository's tasks wherever it starts
        started = time.monotonic()
        result = CliRunner().invoke(main, ["demo", "--out", str(tmp / "out")])
        elapsed = time.monotonic() - started
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output, tmp, elapsed


def test_demo_exits_0_within_a_minute(demo_run: tuple[int, str, Path, float]) -> None:
    code, output, _, elapsed = demo_run
    assert code == 0, output
    assert elapsed < 60
    assert "simulated judge" in output
    assert "labels a careful person would give" in output
    assert "judgekit judge" in output and "--model openai/gpt-4o-mini" in output
    assert "--base-url http://localhost:11434/v1" in output


def test_demo_writes_every_file(demo_run: tuple[int, str, Path, float]) -> None:
    _, _, tmp, _ = demo_run
    out = tmp / "out"
    runs = (out / "runs.jsonl").read_text().splitlines()
    assert len(runs) == 4 * demo.TRIALS
    assert len((out / "results.jsonl").read_text().splitlines()) == len(runs)
    answers = [json.loads(line)["final_answer"] for line in runs]
    assert len(set(answers)) == len(answers)  # unique per trial: a prompt names its run
    for judge in JUDGES:
        assert (out / "rubrics" / f"{judge.rubric_id}.yaml").is_file()
        verdicts = (out / "verdicts" / f"{judge.rubric_id}.jsonl").read_text().splitlines()
        assert len(verdicts) == len(runs)
        assert all(json.loads(line)["model"] == judge.model for line in verdicts)
        labels = [
            json.loads(line)
            for line in (out / "labels" / f"{judge.rubric_id}.jsonl").read_text().splitlines()
        ]
        assert len(labels) == demo.LABELS
        assert {label["labeler"] for label in labels} == {"demo-truth"}
        assert {label["label"] for label in labels} == {"pass", "fail"}
    record = json.loads((out / "rubrics" / "goal_completion.promotion.json").read_text())
    assert record["rubric_id"] == CAREFUL.rubric_id
    assert record["model"] == CAREFUL.model
    assert not (out / "rubrics" / f"{SLOPPY.rubric_id}.promotion.json").exists()
    assert (tmp / "home" / "judgekit.sqlite").is_file()


def test_demo_promotes_the_careful_judge_and_refuses_the_sloppy_one(
    demo_run: tuple[int, str, Path, float],
) -> None:
    _, output, _, _ = demo_run
    assert "promoted goal_completion (" in output
    assert "refused goal_completion_sloppy (" in output
    assert "min_kappa: lower bound of the 95% kappa interval" in output


def test_measured_false_pass_rates_bracket_the_set_rates(
    demo_run: tuple[int, str, Path, float],
) -> None:
    _, output, _, _ = demo_run
    found = {match["judge"]: match for match in FALSE_PASS.finditer(output)}
    assert set(found) == {judge.name for judge in JUDGES}
    for judge in JUDGES:
        match = found[judge.name]
        assert float(match["set"]) == pytest.approx(judge.false_pass_rate)
        assert float(match["low"]) <= float(match["measured"]) <= float(match["high"])
        assert float(match["low"]) <= judge.false_pass_rate <= float(match["high"])


def test_a_rerun_into_the_same_folder_is_refused(demo_run: tuple[int, str, Path, float]) -> None:
    _, _, tmp, _ = demo_run
    result = CliRunner().invoke(main, ["demo", "--out", str(tmp / "out")])
    assert result.exit_code == 2
    assert "already holds a demo" in result.output


def test_without_the_repository_the_demo_says_so_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo.judgekit, "__file__", str(tmp_path / "site" / "judgekit" / "x.py"))
    with pytest.raises(ConfigError, match="installed from a wheel"):
        demo.repo_root()
    result = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "installed from a wheel" in result.output


def test_a_simulated_judge_is_deterministic_and_errs_at_its_rates() -> None:
    judge = SimulatedJudge("j", "r", true_pass_rate=0.9, true_fail_rate=0.7)
    assert judge.score("run-1", True) == judge.score("run-1", True)
    says_pass = [judge.score(f"run-{i}", True) == "pass" for i in range(4000)]
    says_fail = [judge.score(f"run-{i}", False) == "fail" for i in range(4000)]
    assert sum(says_pass) / 4000 == pytest.approx(0.9, abs=0.02)
    assert sum(says_fail) / 4000 == pytest.approx(0.7, abs=0.03)
