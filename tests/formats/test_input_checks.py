"""Runs files are checked whole (one run per id, at least one run); every number judgekit
reads is finite, and counts and costs are never negative."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from judgekit._util.jsonl import iter_models
from judgekit.errors import DataError
from judgekit.formats.grade import Grade
from judgekit.formats.run import check_runs_file, iter_unique_runs, runs_file_ids
from judgekit.formats.task import load_tasks
from judgekit.formats.verdict import Verdict
from judgekit.judging.pricing import PriceTable
from tests.conftest import REPO

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"


def run(run_id: str, **fields: Any) -> str:
    return json.dumps({"run_id": run_id, "task_id": "t", "tool_calls": [], **fields})


def write(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_runs_file_is_counted_and_its_ids_kept_in_order(tmp_path: Path) -> None:
    assert check_runs_file(SHOP_RUNS) == 18
    runs = write(tmp_path / "runs.jsonl", run("b"), "", run("a"), run("c"))
    assert runs_file_ids(runs) == {"b": 1, "a": 3, "c": 4}
    assert [(line, r.run_id) for line, r in iter_unique_runs(runs)] == [
        (1, "b"),
        (3, "a"),
        (4, "c"),
    ]


def test_a_repeated_run_id_names_both_lines(tmp_path: Path) -> None:
    runs = write(
        tmp_path / "runs.jsonl", run("shop/x/0"), run("shop/x/1"), run("shop/x/2"), run("shop/x/1")
    )
    message = (
        f"{runs}:4: run_id: duplicate run id 'shop/x/1' (first at line 2); each run id must "
        "appear once"
    )
    for check in (check_runs_file, runs_file_ids):
        with pytest.raises(DataError) as caught:
            check(runs)
        assert str(caught.value) == message
        assert (caught.value.path, caught.value.line, caught.value.field) == (
            str(runs),
            4,
            "run_id",
        )
    # streaming: the runs before the repeated one come through, then the error
    seen: list[str] = []
    with pytest.raises(DataError, match="duplicate run id 'shop/x/1'"):
        for _, r in iter_unique_runs(runs):
            seen.append(r.run_id)
    assert seen == ["shop/x/0", "shop/x/1", "shop/x/2"]


def test_a_file_without_runs_is_refused(tmp_path: Path) -> None:
    for name, content in (("empty.jsonl", ""), ("blank.jsonl", "\n  \n")):
        runs = tmp_path / name
        runs.write_text(content, encoding="utf-8")
        with pytest.raises(DataError) as caught:
            check_runs_file(runs)
        assert str(caught.value) == f"no runs in {runs}"
        assert caught.value.path == str(runs)
        with pytest.raises(DataError, match=r"^no runs in "):
            list(iter_unique_runs(runs))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('"cost_usd": NaN', "cost_usd: must be a finite number (got nan)"),
        ('"cost_usd": Infinity', "cost_usd: must be a finite number (got inf)"),
        ('"cost_usd": "nan"', "cost_usd: must be a finite number (got 'nan')"),
        ('"cost_usd": -0.5', "cost_usd: must not be negative (got -0.5)"),
        ('"duration_s": -Infinity', "duration_s: must be a finite number (got -inf)"),
        ('"turns": -1', "turns: must not be negative (got -1)"),
        (
            '"usage": {"input_tokens": -12, "output_tokens": 3}',
            "usage.input_tokens: must not be negative (got -12)",
        ),
        (
            '"usage": {"input_tokens": 1e400}',
            "usage.input_tokens: Input should be a finite number (got inf)",
        ),
    ],
)
def test_run_numbers_are_finite_and_not_negative(tmp_path: Path, extra: str, message: str) -> None:
    # Python's JSON readers take NaN, Infinity and 1e400 (inf): all of them are refused.
    bad = run("b").removesuffix("}") + ", " + extra + "}"
    runs = write(tmp_path / "runs.jsonl", run("a"), bad)
    with pytest.raises(DataError) as caught:
        check_runs_file(runs)
    assert str(caught.value) == f"{runs}:2: {message}"


GRADE = {"run_id": "a", "task_id": "t", "passed": True}
VERDICT = {
    "run_id": "a",
    "rubric_id": "goal_completion",
    "rubric_version": "0123456789ab",
    "model": "openai/gpt-4o-mini",
    "status": "scored",
    "score": "pass",
    "at": "2026-11-29T10:00:00Z",
}


@pytest.mark.parametrize(
    ("model", "record", "message"),
    [
        (Grade, {**GRADE, "cost_usd": float("nan")}, "cost_usd: must be a finite number (got nan)"),
        (Grade, {**GRADE, "turns": -3}, "turns: must not be negative (got -3)"),
        (Grade, {**GRADE, "tool_errors": -1}, "tool_errors: must not be negative (got -1)"),
        (
            Verdict,
            {**VERDICT, "cost_usd": float("inf")},
            "cost_usd: must be a finite number (got inf)",
        ),
        (Verdict, {**VERDICT, "output_tokens": -7}, "output_tokens: must not be negative (got -7)"),
        (Verdict, {**VERDICT, "latency_s": -1}, "latency_s: must not be negative (got -1)"),
        (
            Verdict,
            {**VERDICT, "agreement": float("nan")},
            "agreement: must be a finite number (got nan)",
        ),
        (
            Verdict,
            {**VERDICT, "agreement": 1.5},
            "agreement: must be a share between 0 and 1 (got 1.5)",
        ),
    ],
)
def test_grade_and_verdict_numbers(
    tmp_path: Path, model: type[BaseModel], record: dict[str, Any], message: str
) -> None:
    path = write(tmp_path / "file.jsonl", json.dumps(record))
    with pytest.raises(DataError) as caught:
        list(iter_models(path, model))
    assert str(caught.value) == f"{path}:1: {message}"


def test_prices_are_finite_and_a_named_price_file_must_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEKIT_HOME", str(tmp_path / "home"))
    # no prices.yaml in the home: the defaults, as always
    assert PriceTable.from_home().cost("openai/gpt-4o-mini", 1_000_000, 0) == 0.15
    missing = tmp_path / "missing.yaml"
    with pytest.raises(DataError) as caught:
        PriceTable.from_file(missing)
    assert str(caught.value) == f"{missing}: no such file"
    prices = tmp_path / "prices.yaml"
    prices.write_text("local/llama: {input: .nan, output: 0}\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        PriceTable.from_file(prices)
    assert str(caught.value) == (
        f"{prices}:1: local/llama.input: must be a finite number (USD per million tokens, "
        "e.g. {input: 0.15, output: 0.6})"
    )
    (tmp_path / "home" / "prices.yaml").write_text("local/llama: {input: 1, output: 2}\n")
    assert PriceTable.from_home().cost("local/llama", 1_000_000, 1_000_000) == 3.0


@pytest.mark.parametrize(
    ("task_lines", "message"),
    [
        (
            "    max_calls: {book: -1}\n",
            "tasks[0].max_calls.book: must not be negative (got -1)",
        ),
        (
            "    step_budget: {multiplier: .inf}\n",
            "tasks[0].step_budget.multiplier: Input should be a finite number (got inf)",
        ),
        (
            "    timeout_s: .nan\n",
            "tasks[0].timeout_s: Input should be a finite number (got nan)",
        ),
        (
            "    max_tool_error_rate: .nan\n",
            "tasks[0].max_tool_error_rate: Input should be a finite number (got nan)",
        ),
    ],
)
def test_task_numbers(tmp_path: Path, task_lines: str, message: str) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text("suite: s\ntasks:\n  - id: a\n" + task_lines, encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_tasks(suite)
    assert str(caught.value) == f"{suite}:4: {message}"
