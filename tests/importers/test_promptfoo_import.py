"""judgekit import promptfoo: a results file written by ``promptfoo eval -o results.json``.

``data/promptfoo_results.json`` was written by promptfoo itself (0.118.0), against the fake
server: ``python tests/importers/data/record_promptfoo.py`` (two test cases through two
providers, one of them down; icontains, llm-rubric, equals and javascript assertions). The
import is compared with the file parsed here, independently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from judgekit.cli import main

RESULTS = Path(__file__).parent / "data" / "promptfoo_results.json"


def _results() -> list[dict[str, Any]]:
    return list(json.loads(RESULTS.read_text(encoding="utf-8"))["results"]["results"])


def _import(tmp_path: Path) -> tuple[list[dict[str, Any]], str]:
    out = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "promptfoo", str(RESULTS), "-o", str(out)])
    assert result.exit_code == 0, result.output
    runs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return runs, result.stderr


def test_each_result_is_a_run_with_its_prompt_output_usage_cost_and_latency(
    tmp_path: Path,
) -> None:
    runs, stderr = _import(tmp_path)
    results = _results()
    assert stderr.splitlines() == [
        f"imported {len(results)} runs with 0 tool calls (0 tool errors, 0 with invalid "
        f"arguments) to {tmp_path / 'runs.jsonl'}"
    ]
    assert len(runs) == len(results) == 4
    assert [r["stop_reason"] for r in runs] == ["error", "completed", "completed", "error"]
    assert (runs[1]["final_answer"], runs[1]["usage"], runs[1]["cost_usd"]) == (
        "Paris is the capital of France.",
        {"input_tokens": 10, "output_tokens": 6},
        5.1e-06,
    )
    for run, result in zip(runs, results, strict=True):
        response = result.get("response") or {}
        output = response.get("output")
        tokens = response.get("tokenUsage") or {}
        assert run["run_id"] == result["id"]
        assert run["task_id"] == result["testCase"]["description"]
        assert run.get("input") == result["prompt"]["raw"]
        assert run.get("final_answer") == output
        assert run.get("messages_to_user", []) == ([output] if output else [])
        assert run.get("cost_usd") == result.get("cost")
        assert run.get("duration_s") == result["latencyMs"] / 1000
        if tokens.get("prompt") is None:
            assert run.get("usage") is None
        else:
            assert run.get("usage") == {
                "input_tokens": tokens["prompt"],
                "output_tokens": tokens["completion"],
            }
        assert run["stop_reason"] == ("error" if result["failureReason"] == 2 else "completed")


def test_promptfoos_verdict_and_each_assertion_are_kept(tmp_path: Path) -> None:
    runs, _ = _import(tmp_path)
    for run, result in zip(runs, _results(), strict=True):
        verdict = run["metadata"]["promptfoo"]
        components = (result.get("gradingResult") or {}).get("componentResults") or []
        assert verdict["success"] == result["success"]
        assert verdict["score"] == result["score"]
        assert verdict["named_scores"] == result["namedScores"]
        assert verdict["vars"] == result["vars"]
        assert verdict["provider"] == result["provider"]["id"]
        assert verdict["provider_label"] == result["provider"]["label"]
        assert verdict["assertions"] == [
            {
                "type": c["assertion"]["type"],
                "value": c["assertion"]["value"],
                "pass": c["pass"],
                "score": c["score"],
                "reason": c["reason"],
            }
            for c in components
        ]
        assert verdict.get("error") == (result.get("error") or None)


def test_another_importer_given_a_promptfoo_file_names_promptfoo() -> None:
    result = CliRunner().invoke(main, ["import", "openai", str(RESULTS)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"judgekit: error: {RESULTS}: this looks like promptfoo results; "
        "try `judgekit import promptfoo`"
    )
