"""`judgekit probe` on the real openai SDK against FakeLLMServer: a judge that follows
length is caught, a fair judge is not, a pairwise judge preferring A flips on every swap,
and the result is written for promotion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from statsmodels.stats.proportion import proportion_confint

from judgekit.cli import main
from judgekit.probes.perturb import FILLER
from judgekit.testing import FakeLLMServer, FakeRequest
from tests.probes.conftest import (
    BINARY_RUBRIC,
    PAIRWISE_RUBRIC,
    project,
    quoted,
    verdict,
    write_runs,
)

SHORT = ["Paris.", "Four.", "Yes, it is.", "Blue whale.", "1969.", "Oxygen.", "Tokyo.", "Seven."]
LONG = [
    "The capital of Australia is Canberra, not Sydney.",
    "Water boils at 100 degrees Celsius at sea level.",
    "The Pacific is the largest ocean on the planet.",
    "Mount Everest is the highest mountain above sea level.",
]


def _runs(tmp_path: Path) -> Path:
    answers = SHORT + LONG + ["GARBLE"]
    return write_runs(
        tmp_path / "runs.jsonl",
        (
            {"run_id": f"r{i}", "input": "Answer briefly.", "final_answer": a}
            for i, a in enumerate(answers)
        ),
    )


def length_judge(request: FakeRequest) -> str:
    """Passes any answer over 40 characters, whatever it says; garbles on GARBLE."""
    answer = quoted(request, "final_answer").strip()
    if answer.startswith("GARBLE"):
        return "I cannot say."
    return verdict("pass" if len(answer) > 40 else "fail")


def _probe(tmp_path: Path, server: FakeLLMServer, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main,
        ["probe", str(_runs(tmp_path)), "--base-url", server.openai_base_url, *args],
        catch_exceptions=False,
    )
    return result.exit_code, result.output


def test_the_verbosity_probe_catches_a_judge_that_follows_length(tmp_path: Path) -> None:
    rubric = project(
        tmp_path, BINARY_RUBRIC, policy="promotion:\n  max_flip_rate:\n    verbosity: 0.1\n"
    )
    with FakeLLMServer(reply=length_judge) as server:
        code, output = _probe(tmp_path, server, "--rubric", str(rubric), "--bias", "verbosity")
    low, high = proportion_confint(8, 12, method="wilson")
    lines = output.splitlines()
    assert lines[0].startswith("verbosity probe of helpful (version ")
    assert lines[0].endswith(
        "judge openai/gpt-4o-mini): each final answer padded with neutral filler to twice its length"
    )
    assert lines[1:] == [
        f"flip rate 0.667 [{low:.3f}, {high:.3f}] (95%, Wilson): 8 of 12 runs changed verdict; "
        "1 left out (unscored on either side)",
        "  fail→pass 8",
        f"max_flip_rate.verbosity: upper bound {high:.3f}, bar 0.1: exceeded",
        f"wrote {tmp_path / 'rubrics' / 'helpful.probes.json'}",
    ]
    assert code == 1
    written = json.loads((tmp_path / "rubrics" / "helpful.probes.json").read_text())
    probe = written["probes"][0]
    assert written["rubric_id"] == "helpful"
    assert (probe["bias"], probe["rate"], probe["n"]) == ("verbosity", 8 / 12, 12)
    assert probe["ci"] == pytest.approx([low, high], abs=1e-12)
    assert probe["details"]["flipped_runs"] == [f"r{i}" for i in range(8)]
    assert probe["details"]["directions"] == {"fail→pass": 8}
    assert probe["details"]["n_not_scored"] == 1


def test_the_padded_answer_the_judge_saw_is_filler_only(tmp_path: Path) -> None:
    seen: list[str] = []

    def record(request: FakeRequest) -> str:
        seen.append(quoted(request, "final_answer").strip())
        return verdict("pass")

    rubric = project(tmp_path, BINARY_RUBRIC)
    with FakeLLMServer(reply=record) as server:
        code, _ = _probe(
            tmp_path, server, "--rubric", str(rubric), "--bias", "verbosity", "--limit", "1"
        )
    assert code == 0
    assert sorted(seen) == ["Paris.", f"Paris.\n\n{FILLER[0]}"]


def test_a_fair_judge_does_not_flip_and_a_second_probe_is_cached(tmp_path: Path) -> None:
    rubric = project(
        tmp_path, BINARY_RUBRIC, policy="promotion:\n  max_flip_rate:\n    verbosity: 0.3\n"
    )
    with FakeLLMServer(reply=lambda r: verdict("pass")) as server:
        code, output = _probe(
            tmp_path, server, "--rubric", str(rubric), "--bias", "verbosity", "--json"
        )
        calls = server.calls
        again, _ = _probe(tmp_path, server, "--rubric", str(rubric), "--bias", "verbosity")
        assert server.calls == calls  # every request answered from the judge cache
    result = json.loads(output)
    _low, high = proportion_confint(0, 13, method="wilson")
    assert (result["rate"], result["n"], result["exceeded"], result["bar"]) == (0.0, 13, False, 0.3)
    assert result["ci"] == pytest.approx([0.0, high], abs=1e-12)
    assert (code, again) == (0, 0)
    written = json.loads((tmp_path / "rubrics" / "helpful.probes.json").read_text())
    assert len(written["probes"]) == 2


def test_position_on_a_pairwise_rubric_catches_a_judge_preferring_a(tmp_path: Path) -> None:
    rubric = project(tmp_path, PAIRWISE_RUBRIC)
    runs = write_runs(
        tmp_path / "pairs.jsonl",
        (
            {
                "run_id": f"p{i}",
                "input": "Name a colour.",
                "metadata": {"answers": [f"red {i}", f"blue {i}"]},
            }
            for i in range(6)
        ),
    )
    with FakeLLMServer(reply=lambda r: verdict("A")) as server:
        result = CliRunner().invoke(
            main,
            [
                "probe",
                str(runs),
                "--rubric",
                str(rubric),
                "--bias",
                "position",
                "--base-url",
                server.openai_base_url,
            ],
        )
    low, _high = proportion_confint(6, 6, method="wilson")
    lines = result.output.splitlines()
    assert lines[0].endswith("judge openai/gpt-4o-mini): answers A and B swapped")
    assert lines[1:3] == [
        f"flip rate 1.000 [{low:.3f}, 1.000] (95%, Wilson): 6 of 6 runs changed verdict; "
        "0 left out (unscored on either side)",
        "  A→B 6",
    ]
    assert result.exit_code == 0  # no bar set


def test_position_on_a_pointwise_rubric_moves_the_task_after_the_answer(tmp_path: Path) -> None:
    prompts: list[str] = []

    def first_paragraph_judge(request: FakeRequest) -> str:
        text = request.messages[-1]["content"]
        prompts.append(text)
        return verdict("pass" if text.startswith("The user asked:") else "fail")

    rubric = project(tmp_path, BINARY_RUBRIC)
    with FakeLLMServer(reply=first_paragraph_judge) as server:
        code, output = _probe(
            tmp_path, server, "--rubric", str(rubric), "--bias", "position", "--limit", "3"
        )
    assert "flip rate 1.000" in output and "  pass→fail 3" in output.splitlines()
    assert any(p.startswith("The agent answered:") for p in prompts)
    assert code == 0


def test_position_on_a_prompt_without_separate_paragraphs_is_refused(tmp_path: Path) -> None:
    one_paragraph = BINARY_RUBRIC.replace("  {input}\n\n  The agent", "  {input}\n  The agent")
    rubric = project(tmp_path, one_paragraph)
    with FakeLLMServer() as server:
        code, output = _probe(tmp_path, server, "--rubric", str(rubric), "--bias", "position")
        assert server.calls == 0
    assert code == 2
    assert (
        "rubric helpful: the pointwise position probe swaps the paragraph showing the task "
        "with the one showing the answer, but the prompt shows the task and the answer in one "
        "paragraph; separate them by a blank line" in output
    )
