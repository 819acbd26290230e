"""`judgekit grade` and `judgekit run` record their runs and grades in the batch of the runs
file: recording again changes nothing, --no-store records nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.store import open_store
from judgekit.store.record_files import runs_batch_key
from tests.store.recording.conftest import (
    BRANCH,
    SHA,
    SHOP_RUNS,
    SHOP_TASKS,
    counts,
    invoke,
    rows,
    store_file,
    store_url,
)

pytestmark = pytest.mark.usefixtures("pinned_commit")


def test_grade_records_runs_and_grades_once(tmp_path: Path) -> None:
    for _ in range(2):
        code, out, _ = invoke("grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path)
        assert code == 0
        assert out.splitlines()[-2:] == [
            f"wrote {tmp_path / 'results.jsonl'} and {tmp_path / 'results.csv'}",
            f"recorded 18 grades in the store {store_url()} (batch 1)",
        ]
        assert counts() == rows(batches=1, runs=18, grades=18)
    with open_store() as store:
        (batch,) = store.batches()
        assert len(store.grades(batch.id)) == 18
    assert (batch.batch_key, batch.source) == (runs_batch_key(SHOP_RUNS), "grade")
    assert (batch.git_sha, batch.branch, batch.agent_version, batch.tags) == (
        SHA,
        BRANCH,
        None,
        None,
    )


def test_grade_json_has_the_store(tmp_path: Path) -> None:
    code, out, _ = invoke("grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path, "--json")
    assert code == 0
    assert json.loads(out)["store"] == {"url": store_url(), "batch_id": 1}


def test_no_store_records_nothing(tmp_path: Path) -> None:
    code, out, _ = invoke(
        "grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path, "--no-store"
    )
    assert code == 0
    assert out.splitlines()[-1] == (
        f"wrote {tmp_path / 'results.jsonl'} and {tmp_path / 'results.csv'}"
    )
    code, out, _ = invoke(
        "grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path, "--no-store", "--json"
    )
    assert code == 0
    assert json.loads(out)["store"] is None
    assert not store_file().exists()


def test_options_describe_the_batch(tmp_path: Path) -> None:
    code, _, _ = invoke(
        "grade",
        SHOP_RUNS,
        "--tasks",
        SHOP_TASKS,
        "--out",
        tmp_path,
        "--tag",
        "model=gpt-4o-mini",
        "--tag",
        "note=a=b",
        "--agent-version",
        "1.4.0",
        "--branch",
        "main",
    )
    assert code == 0
    with open_store() as store:
        (batch,) = store.batches(branch="main")
    assert (batch.git_sha, batch.agent_version, batch.tags) == (
        SHA,
        "1.4.0",
        {"model": "gpt-4o-mini", "note": "a=b"},
    )


@pytest.mark.parametrize("tag", ["model", "=gpt-4o"])
def test_a_malformed_tag_is_a_usage_error(tmp_path: Path, tag: str) -> None:
    code, _, err = invoke(
        "grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path, "--tag", tag
    )
    assert code == 2
    assert err == (
        f"judgekit: error: Invalid value for '--tag': expected KEY=VALUE, got {tag!r} "
        "(see judgekit grade --help)\n"
    )
    assert not (tmp_path / "results.jsonl").exists()


def test_a_store_failure_says_the_results_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEKIT_DB", "mysql://judge@db/judgekit")
    code, out, err = invoke("grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path, "--json")
    assert (code, out) == (2, "")
    assert err == (
        f"judgekit: error: results written to {tmp_path / 'results.jsonl'} and "
        f"{tmp_path / 'results.csv'}; the store could not record them: mysql://judge@db/judgekit: "
        "the store supports sqlite and postgresql, not mysql\n"
    )
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 18


def run_shop(out: Path, *extra: str) -> tuple[int, str, str]:
    return invoke(
        "run",
        "--tasks",
        SHOP_TASKS,
        "--agent",
        "examples.shop:agent",
        "--trials",
        "3",
        "--out",
        out,
        *extra,
    )


def test_run_records_its_runs_and_grades(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, stdout, _ = run_shop(out)
    assert code == 0
    assert stdout.splitlines()[-2:] == [
        f"wrote {out / 'runs.jsonl'}, results.jsonl and results.csv",
        f"recorded 12 grades in the store {store_url()} (batch 1)",
    ]
    assert counts() == rows(batches=1, runs=12, grades=12)
    with open_store() as store:
        (batch,) = store.batches(source="run")
    assert batch.batch_key == runs_batch_key(out / "runs.jsonl")
    # Nothing left to run: the same runs.jsonl, the same batch, no new rows.
    code, stdout, _ = run_shop(out, "--resume", "--json")
    assert code == 0
    assert json.loads(stdout)["store"] == {"url": store_url(), "batch_id": 1}
    assert counts() == rows(batches=1, runs=12, grades=12)
    # Grading the same runs file later adds its grades to that batch, not a new one.
    code, _, _ = invoke("grade", out / "runs.jsonl", "--tasks", SHOP_TASKS, "--out", tmp_path)
    assert code == 0
    assert counts() == rows(batches=1, runs=12, grades=12)


def test_run_no_store(tmp_path: Path) -> None:
    code, stdout, _ = run_shop(tmp_path / "out", "--no-store", "--json")
    assert code == 0
    assert json.loads(stdout)["store"] is None
    assert not store_file().exists()
