"""The self probe against hand labels, and promotion held to the probes' bars."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.testing import FakeLLMServer, FakeRequest
from tests.probes.conftest import BINARY_RUBRIC, project, quoted, verdict, write_runs
from tests.probes.test_probe_cli import _runs, length_judge

AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _labels(tmp_path: Path, labels: dict[str, str]) -> Path:
    folder = tmp_path / "labels"
    folder.mkdir(exist_ok=True)
    path = folder / "helpful.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "run_id": run,
                    "rubric_id": "helpful",
                    "label": label,
                    "labeler": "ana",
                    "at": AT.isoformat(),
                }
            )
            + "\n"
            for run, label in labels.items()
        ),
        encoding="utf-8",
    )
    return path


def self_judge(request: FakeRequest) -> str:
    """Passes its own model's answers (marked `[mini]`) four times in five; others 1 in 8."""
    answer = quoted(request, "final_answer").strip()
    number = int(answer.split()[-1])
    if answer.startswith("[mini]"):
        return verdict("pass" if number < 4 else "fail")
    return verdict("pass" if number < 1 else "fail")


def test_the_self_probe_compares_false_pass_rates_with_newcombe(tmp_path: Path) -> None:
    rubric = project(tmp_path, BINARY_RUBRIC)
    own = [
        {
            "run_id": f"m{i}",
            "final_answer": f"[mini] answer {i}",
            "metadata": {"model": "gpt-4o-mini"},
        }
        for i in range(5)
    ]
    others = [
        {"run_id": f"o{i}", "final_answer": f"other answer {i}", "metadata": {"model": "claude-x"}}
        for i in range(8)
    ]
    runs = write_runs(
        tmp_path / "runs.jsonl", [*own, *others, {"run_id": "u", "final_answer": "x 9"}]
    )
    _labels(tmp_path, {**{r["run_id"]: "fail" for r in own + others}, "u": "pass"})
    with FakeLLMServer(reply=self_judge) as server:
        result = CliRunner().invoke(
            main,
            [
                "probe",
                str(runs),
                "--rubric",
                str(rubric),
                "--bias",
                "self",
                "--base-url",
                server.openai_base_url,
            ],
            catch_exceptions=False,
        )
    low, high = confint_proportions_2indep(4, 5, 1, 8, method="newcomb", compare="diff")
    lines = result.output.splitlines()
    assert lines[1:3] == [
        "false-pass rate on runs humans failed: by gpt-4o-mini 0.800 (4 of 5), by other models "
        "0.125 (1 of 8)",
        f"self-preference (own − others) 0.675 [{low:.3f}, {high:.3f}] (95%, Newcombe): above 0, "
        "the judge passes its own model's failures more often",
    ]
    assert result.exit_code == 0
    probe = json.loads((tmp_path / "rubrics" / "helpful.probes.json").read_text())["probes"][0]
    assert probe["rate"] == pytest.approx(0.675)
    assert probe["ci"] == pytest.approx([low, high], abs=1e-12)
    assert (probe["n"], probe["details"]["own_false_passes"]) == (13, 4)


def test_the_self_probe_without_runs_by_the_judge_model_says_so(tmp_path: Path) -> None:
    rubric = project(tmp_path, BINARY_RUBRIC)
    _labels(tmp_path, {"r0": "fail"})
    with FakeLLMServer() as server:
        result = CliRunner().invoke(
            main,
            [
                "probe",
                str(_runs(tmp_path)),
                "--rubric",
                str(rubric),
                "--bias",
                "self",
                "--base-url",
                server.openai_base_url,
            ],
        )
    assert result.exit_code == 2
    assert "no runs by gpt-4o-mini among the 13 runs probed" in result.output


POLICY = """\
promotion:
  min_labels: 1
  min_per_class: 0
  min_kappa: -1
  max_flip_rate:
    verbosity: 0.1
"""


def _promote(tmp_path: Path, rubric: Path) -> tuple[int, list[str]]:
    loaded = load_rubric(str(rubric))
    verdicts = tmp_path / "verdicts.jsonl"
    runs = [f"r{i}" for i in range(13)]
    verdicts.write_text(
        "".join(
            Verdict(
                run_id=run,
                rubric_id="helpful",
                rubric_version=rubric_version(loaded),
                model=loaded.judge.model,
                status="scored",
                score="pass" if i % 2 else "fail",
                at=AT,
            ).model_dump_json()
            + "\n"
            for i, run in enumerate(runs)
        ),
        encoding="utf-8",
    )
    labels = _labels(tmp_path, {run: "pass" if i % 2 else "fail" for i, run in enumerate(runs)})
    result = CliRunner().invoke(
        main,
        [
            "promote",
            "--rubric",
            str(rubric),
            "--verdicts",
            str(verdicts),
            "--labels",
            str(labels),
            "--no-store",
        ],
    )
    return result.exit_code, result.output.splitlines()


def test_promotion_is_refused_until_the_probe_is_within_the_bar(tmp_path: Path) -> None:
    rubric = project(tmp_path, BINARY_RUBRIC, policy=POLICY)
    code, lines = _promote(tmp_path, rubric)
    assert code == 1
    assert (
        "  max_flip_rate.verbosity: upper bound of the flip-rate interval undefined, bar 0.1 "
        "(not met: run `judgekit probe --bias verbosity` first)" in lines
    )
    with FakeLLMServer(reply=length_judge) as server:
        CliRunner().invoke(
            main,
            [
                "probe",
                str(_runs(tmp_path)),
                "--rubric",
                str(rubric),
                "--bias",
                "verbosity",
                "--base-url",
                server.openai_base_url,
            ],
        )
    code, lines = _promote(tmp_path, rubric)
    high = proportion_confint(8, 12, method="wilson")[1]
    assert code == 1
    assert (
        f"  max_flip_rate.verbosity: upper bound of the 95% flip-rate interval {high:.3f}, bar 0.1 "
        f"({high - 0.1:.3f} over)" in lines
    )
    with FakeLLMServer(reply=lambda r: verdict("pass")) as server:
        CliRunner().invoke(
            main,
            [
                "probe",
                str(_runs(tmp_path)),
                "--rubric",
                str(rubric),
                "--bias",
                "verbosity",
                "--base-url",
                server.openai_base_url,
            ],
        )
    code, lines = _promote(tmp_path, rubric)
    # 0 of 13 flipped: the Wilson upper bound 0.228 is still above 0.1 — more runs are needed
    assert code == 1
    assert any("max_flip_rate.verbosity" in line and "(0.128 over)" in line for line in lines)
