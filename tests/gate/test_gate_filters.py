"""`judgekit gate` against the store with a pull request's batch newer than main's: the
filters choose the baseline's batch, --suite narrows both sides."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.store import open_store
from judgekit.store.run_filter import RunFilter
from tests.store.two_suites import record_two_suites


@pytest.fixture
def ids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    monkeypatch.chdir(tmp_path)
    return record_two_suites()


def gate(*options: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(main, ["gate", "--json", *options])
    assert result.exit_code in (0, 1), (result.output, result.exception)
    return result.exit_code, json.loads(result.stdout)


def sides(report: dict[str, Any]) -> tuple[tuple[int, int], tuple[int, int]]:
    suite = report["suite"]
    return (
        (suite["baseline"]["n"], suite["baseline"]["passes"]),
        (suite["candidate"]["n"], suite["candidate"]["passes"]),
    )


def test_latest_main_is_main_s_though_a_pull_request_is_newer(ids: dict[str, int]) -> None:
    candidate = f"batch:{ids['pr-9']}"
    code, report = gate("--baseline", "latest:main", "--candidate", candidate)
    assert (code, sides(report)) == (1, ((20, 13), (20, 9)))
    assert report["failing_tasks"] == ["cancel_order", "refund_full"]
    # The pull request's branch as the baseline: the candidate against itself.
    code, report = gate("--baseline", "latest:feature/x", "--candidate", candidate)
    assert (code, sides(report)) == (0, ((20, 9), (20, 9)))


def test_suite_narrows_both_sides_and_finds_the_drop(ids: dict[str, int]) -> None:
    candidate = f"batch:{ids['pr-9']}"
    code, report = gate("--baseline", "latest:main", "--suite", "shop", "--candidate", candidate)
    assert code == 1
    assert sides(report) == ((10, 7), (10, 0))
    assert report["failing_tasks"] == ["cancel_order", "refund_full"]
    code, report = gate("--baseline", "latest:main", "--suite", "travel", "--candidate", candidate)
    assert (code, sides(report)) == (0, ((10, 6), (10, 9)))


def test_tags_and_agent_version_choose_the_baseline(ids: dict[str, int]) -> None:
    candidate = f"batch:{ids['pr-9']}"
    shop = ["--suite", "shop", "--candidate", candidate]
    _, report = gate("--baseline", "latest:main", "--agent-version", "1.0", *shop)
    assert sides(report) == ((10, 8), (10, 0))  # main's first batch, not its newest
    _, report = gate("--baseline", "latest:main", "--tag", "env=nightly", *shop)
    assert sides(report) == ((10, 7), (10, 0))
    with open_store() as store:
        assert store.batch_with_grades("latest", only=_only(version="1.0")).id == ids["main-1"]
    result = CliRunner().invoke(
        main,
        ["gate", "--baseline", "latest:main", "--tag", "env=weekly", "--candidate", candidate],
    )
    assert result.exit_code == 2
    assert result.output.endswith(": no batch with grades matches latest:main --tag env=weekly\n")


def test_suite_narrows_a_results_file_too(ids: dict[str, int], tmp_path: Path) -> None:
    with open_store() as store:
        lines = [g.model_dump_json() for g in store.grades(ids["pr-9"])]
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(lines) + "\n")
    code, report = gate("--baseline", "latest:main", "--suite", "shop", "--candidate", str(results))
    assert (code, sides(report)) == (1, ((10, 7), (10, 0)))


def _only(*, version: str) -> RunFilter:
    return RunFilter(agent_version=version)
