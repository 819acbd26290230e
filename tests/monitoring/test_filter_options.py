"""`judgekit monitor --suite/--branch/--tag/--agent-version` on a real SQLite store holding two
suites, main's nightly batches and a pull request's: exact series with each filter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.store import open_store
from tests.store.two_suites import RUBRIC, day, record_two_suites


@pytest.fixture(autouse=True)
def two_suites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    record_two_suites()


def points(*options: str) -> dict[str, list[tuple[str, int, int | None]]]:
    """Each series' points as (label, n, successes), from ``monitor --json``."""
    result = CliRunner().invoke(main, ["monitor", "--json", *options])
    assert result.exit_code == 0, (result.output, result.exception)
    report: dict[str, Any] = json.loads(result.stdout)
    return {
        series["metric"]: [(p["label"], p["n"], p.get("successes")) for p in series["points"]]
        for series in report["series"]
    }


def test_without_a_filter_the_pull_request_lands_in_the_daily_series() -> None:
    assert points()["pass_rate"] == [(day(3), 20, 13), (day(2), 20, 13), (day(1), 20, 9)]


def test_branch_main_keeps_pull_requests_out() -> None:
    series = points("--branch", "main")
    assert series["pass_rate"] == [(day(3), 20, 13), (day(2), 20, 13)]
    assert series[f"rubric:{RUBRIC}"] == [(day(3), 20, 13), (day(2), 20, 13)]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--suite", "shop"], [(day(3), 10, 8), (day(2), 10, 7), (day(1), 10, 0)]),
        (["--suite", "shop", "--branch", "main"], [(day(3), 10, 8), (day(2), 10, 7)]),
        (["--suite", "travel", "--tag", "env=pr"], [(day(1), 10, 9)]),
        (["--tag", "env=nightly", "--agent-version", "1.1"], [(day(2), 20, 13)]),
        (["--agent-version", "1.0", "--suite", "travel"], [(day(3), 10, 5)]),
    ],
)
def test_each_filter_gives_its_series(options: list[str], expected: list[Any]) -> None:
    series = points(*options)
    assert series["pass_rate"] == expected
    assert series[f"rubric:{RUBRIC}"] == expected  # verdicts: their run's suite, their batch


def test_the_filter_is_in_the_json_and_the_table() -> None:
    options = ["--suite", "shop", "--branch", "main", "--tag", "env=nightly"]
    result = CliRunner().invoke(main, ["monitor", "--json", *options])
    assert json.loads(result.stdout)["filter"] == {
        "suite": "shop",
        "branch": "main",
        "tags": {"env": "nightly"},
        "agent_version": None,
    }
    result = CliRunner().invoke(main, ["monitor", *options])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "only --suite shop --branch main --tag env=nightly"


def test_a_filter_matching_nothing_is_exit_2_saying_so() -> None:
    with open_store() as store:
        url = store.url
    result = CliRunner().invoke(main, ["monitor", "--branch", "mian", "--suite", "shop"])
    assert result.exit_code == 2
    assert result.output == (
        f"judgekit: error: {url}: no grade or verdict in the store matches --suite shop --branch mian\n"
    )


@pytest.mark.parametrize("tag", ["env", "=nightly"])
def test_a_tag_must_be_key_equals_value(tag: str) -> None:
    result = CliRunner().invoke(main, ["monitor", "--tag", tag])
    assert result.exit_code == 2
    assert f"Invalid value for '--tag': '{tag}' is not KEY=VALUE (e.g. --tag model=gpt-4o)" in (
        result.output
    )


def test_filters_do_not_go_with_recheck() -> None:
    result = CliRunner().invoke(
        main, ["monitor", "--recheck", "goal_completion", "--branch", "main"]
    )
    assert result.exit_code == 2
    assert result.output == (
        "judgekit: error: --branch main: the filters narrow the monitor's series; --recheck judges the "
        "rubric's labelled runs, whatever their batch\n"
    )


def test_by_batch_the_filters_read_the_batches_the_query_joins() -> None:
    series = points("--by", "batch", "--branch", "main", "--suite", "shop")
    assert series["pass_rate"] == [("batch 1", 10, 8), ("batch 2", 10, 7)]
    series = points("--by", "batch", "--tag", "env=pr")
    assert series["pass_rate"] == [("batch 3", 20, 9)]
