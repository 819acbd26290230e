"""`judgekit align` refuses malformed inputs before asking anything (exit 2, naming the
file, the line and the field), and reuses the current rubric's verdicts when given them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from judgekit.cli import main
from judgekit.judging.pipeline import JudgeRequest, judging_session, prepare_judging
from judgekit.testing import FakeLLMServer
from tests.alignment.world import desk_server_reply, write_world

RUNS = Path("runs.jsonl")
RUBRIC = Path("rubrics/support.yaml")
LABELS = Path("labels/support.jsonl")


@pytest.fixture
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-desk")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    write_world(tmp_path)
    return tmp_path


def align(*extra: str, base_url: str = "http://127.0.0.1:9/v1") -> Result:
    args = ["align", str(RUNS), "--rubric", str(RUBRIC), "--base-url", base_url, *extra]
    return CliRunner().invoke(main, args)


def replace_line(path: Path, number: int, text: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[number - 1] = text
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_label_off_the_scale_names_the_file_line_and_field(desk: Path) -> None:
    line = json.loads(LABELS.read_text(encoding="utf-8").splitlines()[2])
    replace_line(LABELS, 3, json.dumps({**line, "label": "maybe"}))
    result = align()
    assert result.exit_code == 2
    assert result.stderr == (
        'judgekit: error: labels/support.jsonl:3: label: unknown label "maybe" for the binary '
        'scale of support; valid labels are "pass", "fail"\n'
    )
    assert not Path("labels/support.split.jsonl").exists()


def test_a_malformed_run_names_the_file_and_line(desk: Path) -> None:
    replace_line(RUNS, 5, '{"run_id": "x-1", "task_id": "refund", "tool_calls": 7}')
    result = align()
    assert result.exit_code == 2
    assert result.stderr.startswith("judgekit: error: runs.jsonl:5: tool_calls: ")


def test_a_malformed_verdicts_file_names_the_file_and_line(desk: Path) -> None:
    Path("verdicts.jsonl").write_text('{"run_id": "r-00"}\n', encoding="utf-8")
    result = align("--verdicts", "verdicts.jsonl")
    assert result.exit_code == 2
    assert result.stderr.startswith("judgekit: error: verdicts.jsonl:1: ")


def test_a_malformed_rubric_names_the_file_line_and_field(desk: Path) -> None:
    RUBRIC.write_text(
        RUBRIC.read_text(encoding="utf-8").replace("{final_answer}", "{answer}"), encoding="utf-8"
    )
    result = align()
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "judgekit: error: rubrics/support.yaml:12: prompt: unknown placeholder {answer}; "
    )


def test_an_unknown_optimizer_provider_is_refused_before_anything_is_asked(desk: Path) -> None:
    result = align("--optimizer-model", "nowhere/model")
    assert result.exit_code == 2
    assert "model 'nowhere/model': unknown provider 'nowhere'" in result.stderr


def test_too_few_dev_runs_for_the_folds_says_what_to_do(desk: Path) -> None:
    result = align("--folds", "16")
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: align needs at least 32 labelled dev runs of support for 16 folds, "
        "with a run in runs.jsonl; it has 30 (of 30 labelled on dev): label more runs, or "
        "pass fewer --folds\n"
    )


def test_the_current_verdicts_are_reused_and_not_asked_again(desk: Path) -> None:
    with FakeLLMServer(reply=desk_server_reply(weak=True)) as server:
        prepared = prepare_judging(
            JudgeRequest(
                runs=RUNS, rubric_ref=str(RUBRIC), base_url=server.openai_base_url, use_cache=False
            )
        )
        with judging_session(prepared, desk, provenance=None) as session:
            session.judge()
        asked_before = server.calls
        result = align(
            "--verdicts", "verdicts.jsonl", "--no-cache", base_url=server.openai_base_url
        )
        asked_by_align = server.calls - asked_before
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "align: 3 candidates × 30 dev runs: up to 90 judge requests (cached answers cost nothing)"
    ]
    assert asked_by_align == 90
    assert "asked the judge 90 times (0 answers from the cache)" in result.stdout


def test_max_cost_stops_align_with_nothing_written(desk: Path) -> None:
    Path("prices.yaml").write_text(
        "openai/desk-judge: {input: 1000, output: 1000}\n", encoding="utf-8"
    )
    original = RUBRIC.read_bytes()
    with FakeLLMServer(reply=desk_server_reply(weak=True)) as server:
        result = align(
            "--max-cost", "0.5", "--prices", "prices.yaml", base_url=server.openai_base_url
        )
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith("judgekit: error: --max-cost reached after ")
    assert result.stderr.splitlines()[-1].endswith(" judge requests; nothing written")
    assert RUBRIC.read_bytes() == original
