"""The perturbations themselves, the probes file's loader, and the Likert mean shift."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from statsmodels.stats.weightstats import DescrStatsW

from judgekit.cli import main
from judgekit.errors import DataError
from judgekit.formats.probe_file import ProbeResult, add_probe, latest_probe, load_probes
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import Run
from judgekit.probes.perturb import FILLER, pad_answer, padded_run, sections_swapped
from judgekit.testing import FakeLLMServer, FakeRequest
from tests.probes.conftest import (
    BINARY_RUBRIC,
    PAIRWISE_RUBRIC,
    project,
    quoted,
    write_runs,
)


@pytest.mark.parametrize(
    "text", ["", "x", "Paris.", "A longer answer of some sixty characters, give or take."]
)
def test_padding_at_least_doubles_and_only_adds_filler(text: str) -> None:
    padded = pad_answer(text)
    assert padded.startswith(text + "\n\n" + FILLER[0])
    assert len(padded) >= 2 * len(text)
    added = padded[len(text) + 2 :]
    assert all(f in FILLER for f in _sentences(added))
    assert pad_answer(text) == padded  # deterministic


def _sentences(text: str) -> list[str]:
    parts, current = [], ""
    for word in text.split(" "):
        current = f"{current} {word}".strip()
        if current in FILLER:
            parts.append(current)
            current = ""
    assert current == ""
    return parts


def test_a_pairwise_run_has_answer_b_padded(tmp_path: Path) -> None:
    rubric = load_rubric(str(project(tmp_path, PAIRWISE_RUBRIC)))
    run = Run(run_id="p", task_id="t", tool_calls=[], metadata={"answers": ["red", "blue"]})
    assert padded_run(run, rubric).metadata["answers"] == ["red", f"blue\n\n{FILLER[0]}"]
    assert run.metadata["answers"] == ["red", "blue"]  # the original is untouched


def test_the_pointwise_position_swap_moves_the_task_after_the_answer(tmp_path: Path) -> None:
    rubric = load_rubric(str(project(tmp_path, BINARY_RUBRIC)))
    swapped = sections_swapped(rubric)
    assert swapped.prompt == (
        "The agent answered:\n{final_answer}\n\nThe user asked:\n{input}\n\n"
        "Did the answer do what was asked?\n"
    )
    assert swapped.placeholders == ("final_answer", "input")


def _result(bias: str, version: str, high: float) -> ProbeResult:
    return ProbeResult.model_validate(
        {
            "bias": bias,
            "rubric_version": version,
            "model": "openai/m",
            "rate": 0.0,
            "ci": [0.0, high],
            "confidence": 0.95,
            "n": 10,
            "at": "2026-12-01T09:00:00+00:00",
        }
    )


def test_the_latest_probe_of_the_version_and_bias_counts(tmp_path: Path) -> None:
    path = tmp_path / "rubrics" / "r.probes.json"
    add_probe(path, "r", _result("verbosity", "v1", 0.5))
    add_probe(path, "r", _result("verbosity", "v1", 0.2))
    add_probe(path, "r", _result("position", "v1", 0.9))
    probes = add_probe(path, "r", _result("verbosity", "v2", 0.7))
    assert load_probes(path) == probes
    assert latest_probe(probes, version="v1", bias="verbosity").ci == (0.0, 0.2)  # type: ignore[union-attr]
    assert latest_probe(probes, version="v3", bias="verbosity") is None
    assert load_probes(tmp_path / "none.json") is None
    with pytest.raises(DataError, match="holds the probes of r, not s"):
        add_probe(path, "s", _result("self", "v1", 0.1))


def test_a_malformed_probes_file_names_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "r.probes.json"
    path.write_text(json.dumps({"rubric_id": "r", "probes": [{"bias": "length"}]}))
    with pytest.raises(DataError) as caught:
        load_probes(path)
    assert str(path) in str(caught.value)
    assert "probes.0.bias" in str(caught.value)
    assert "'verbosity', 'position' or 'self'" in str(caught.value)
    path.write_text("{")
    with pytest.raises(DataError, match="not a readable probes file"):
        load_probes(path)


LIKERT_RUBRIC = BINARY_RUBRIC.replace("scale: binary", "scale: likert")


def test_a_likert_probe_reports_the_mean_shift_with_a_t_interval(tmp_path: Path) -> None:
    rubric = project(tmp_path, LIKERT_RUBRIC)
    answers = [
        "Paris.",
        "Four.",
        "The capital of Australia is Canberra.",
        "1969.",
        "Oxygen, mostly.",
    ]

    def judge(request: FakeRequest) -> str:
        answer = quoted(request, "final_answer").strip()
        return json.dumps({"reason": "read", "score": min(5, 1 + len(answer) // 20)})

    runs = write_runs(
        tmp_path / "runs.jsonl",
        ({"run_id": f"r{i}", "input": "Q", "final_answer": a} for i, a in enumerate(answers)),
    )
    before = [min(5, 1 + len(a) // 20) for a in answers]
    after = [min(5, 1 + len(pad_answer(a)) // 20) for a in answers]
    with FakeLLMServer(reply=judge) as server:
        result = CliRunner().invoke(
            main,
            [
                "probe",
                str(runs),
                "--rubric",
                str(rubric),
                "--bias",
                "verbosity",
                "--json",
                "--base-url",
                server.openai_base_url,
            ],
            catch_exceptions=False,
        )
    details = json.loads(result.output)["details"]
    shift = np.array(after, float) - np.array(before, float)
    assert details["mean_shift"] == pytest.approx(shift.mean())
    assert details["mean_shift_ci"] == pytest.approx(list(DescrStatsW(shift).tconfint_mean()))
    assert details["directions"] == {
        f"{b}→{a}": sum(1 for x, y in zip(before, after, strict=True) if (x, y) == (b, a))
        for b, a in sorted(set(zip(before, after, strict=True)))
        if a != b
    }
