"""`judgekit store import` and `judgekit store info`."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from judgekit.formats.verdict import Verdict
from judgekit.store import open_store
from judgekit.store.record_files import file_sha256, runs_batch_key
from tests.store.recording.conftest import (
    SHOP_RUNS,
    SHOP_TASKS,
    counts,
    invoke,
    rows,
    store_file,
    store_url,
)

pytestmark = pytest.mark.usefixtures("pinned_commit")

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def verdict(i: int) -> dict[str, Any]:
    return {
        "run_id": f"shop/refund_full/{i}",
        "rubric_id": "goal_completion",
        "rubric_version": "3f2a9c",
        "model": "openai/gpt-4o-mini",
        "status": "scored",
        "score": "pass" if i % 3 else "fail",
        "at": (T0 + timedelta(minutes=i)).isoformat(),
    }


def write_verdicts(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps(verdict(i)) + "\n" for i in range(n)))
    return path


def results_file(tmp_path: Path) -> Path:
    code, _, _ = invoke(
        "grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path / "graded", "--no-store"
    )
    assert code == 0
    return tmp_path / "graded" / "results.jsonl"


def test_import_runs_twice_records_them_once(tmp_path: Path) -> None:
    for _ in range(2):
        code, out, _ = invoke("store", "import", SHOP_RUNS)
        assert (code, out) == (0, f"{SHOP_RUNS}: 18 runs recorded (batch 1)\n")
        assert counts() == rows(batches=1, runs=18)
    # Grading the same runs later lands in the import's batch.
    code, out, _ = invoke("grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path)
    assert code == 0
    assert out.splitlines()[-1] == f"recorded 18 grades in the store {store_url()} (batch 1)"
    assert counts() == rows(batches=1, runs=18, grades=18)
    with open_store() as store:
        (batch,) = store.batches()
    assert (batch.batch_key, batch.source) == (runs_batch_key(SHOP_RUNS), "import")


def test_import_runs_with_tasks_grades_them(tmp_path: Path) -> None:
    code, out, _ = invoke(
        "store", "import", SHOP_RUNS, "--tasks", SHOP_TASKS, "--tag", "suite=shop"
    )
    assert (code, out) == (0, f"{SHOP_RUNS}: 18 runs and 18 grades recorded (batch 1)\n")
    assert counts() == rows(batches=1, runs=18, grades=18)
    with open_store() as store:
        (batch,) = store.batches()
        passed = sum(grade.passed for grade in store.grades(batch.id))
    assert (batch.tags, passed) == ({"suite": "shop"}, 5)


def test_import_results_twice(tmp_path: Path) -> None:
    results = results_file(tmp_path)
    for _ in range(2):
        code, out, _ = invoke("store", "import", results)
        assert (code, out) == (0, f"{results}: 18 grades recorded (batch 1)\n")
        assert counts() == rows(batches=1, grades=18)
    with open_store() as store:
        (batch,) = store.batches()
    assert batch.batch_key == f"import:{file_sha256(results)}"


def test_import_verdicts_twice(tmp_path: Path) -> None:
    verdicts = write_verdicts(tmp_path / "verdicts.jsonl", 40)
    for _ in range(2):
        code, out, _ = invoke("store", "import", verdicts, "--agent-version", "1.2")
        assert (code, out) == (0, f"{verdicts}: 40 verdicts recorded (batch 1)\n")
        assert counts() == rows(batches=1, verdicts=40)
    with open_store() as store:
        assert len(store.verdicts("goal_completion")) == 40
        (batch,) = store.batches(source="import")
    assert batch.agent_version == "1.2"


def test_import_several_files_and_gzip(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl.gz"
    runs.write_bytes(gzip.compress(SHOP_RUNS.read_bytes()))
    results = results_file(tmp_path)
    verdicts = write_verdicts(tmp_path / "verdicts.jsonl", 3)
    code, out, _ = invoke("store", "import", runs, results, verdicts)
    assert code == 0
    assert out.splitlines() == [
        f"{runs}: 18 runs recorded (batch 1)",
        f"{results}: 18 grades recorded (batch 2)",
        f"{verdicts}: 3 verdicts recorded (batch 3)",
    ]
    assert counts() == rows(batches=3, runs=18, grades=18, verdicts=3)


def test_a_malformed_line_records_nothing(tmp_path: Path) -> None:
    good = write_verdicts(tmp_path / "good.jsonl", 3)
    bad = tmp_path / "bad.jsonl"
    lines = [json.dumps(verdict(0)), json.dumps({**verdict(1), "status": "maybe"})]
    bad.write_text("\n".join(lines) + "\n")
    code, out, err = invoke("store", "import", good, bad)
    assert (code, out) == (2, "")
    assert err == (
        f"judgekit: error: {bad}:2: status: Input should be 'scored', 'unscored' or "
        "'abstained' (got 'maybe')\n"
    )
    assert not store_file().exists()


def test_malformed_json_records_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "runs.jsonl"
    bad.write_text(SHOP_RUNS.read_text().splitlines()[0] + "\n{not json\n")
    code, _, err = invoke("store", "import", bad)
    assert code == 2
    assert err == (
        f"judgekit: error: {bad}:2: malformed JSON: key must be a string at line 1 column 2\n"
    )
    assert not store_file().exists()


def test_kind_option_and_undetectable_files(tmp_path: Path) -> None:
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps({"task_id": "refund_full"}) + "\n")
    code, _, err = invoke("store", "import", odd)
    assert code == 2
    assert err == (
        f"judgekit: error: {odd}:1: not runs (no run_id), results (no passed) or verdicts "
        "(no rubric_id and status); pass --kind runs|results|verdicts\n"
    )
    code, _, err = invoke("store", "import", odd, "--kind", "runs")
    assert code == 2
    assert err == f"judgekit: error: {odd}:1: run_id: required field is missing\n"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    code, _, err = invoke("store", "import", empty)
    assert (code, err) == (2, f"judgekit: error: {empty}: no records: nothing to import\n")
    assert not store_file().exists()


def test_unknown_task_ids_with_tasks(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    extra = {"run_id": "x", "task_id": "nope", "tool_calls": []}
    runs.write_text(SHOP_RUNS.read_text() + json.dumps(extra) + "\n")
    code, _, err = invoke("store", "import", runs, "--tasks", SHOP_TASKS)
    assert code == 2
    assert err == (
        f"judgekit: error: {runs}:19: task_id: unknown task id 'nope' (not in the loaded "
        "suites; pass --skip-unknown to pass such runs over)\n"
    )
    assert not store_file().exists()
    code, out, _ = invoke("store", "import", runs, "--tasks", SHOP_TASKS, "--skip-unknown")
    assert (code, out) == (0, f"{runs}: 19 runs and 18 grades recorded (batch 1)\n")


def test_info_of_an_empty_store() -> None:
    code, out, _ = invoke("store", "info")
    assert code == 0
    assert out.splitlines() == [
        f"store         {store_url()}",
        "batches       0",
        "runs          0",
        "grades        0",
        "verdicts      0",
        "calibrations  0",
        "promotions    0",
        "latest batch  none",
    ]
    code, out, _ = invoke("store", "info", "--json")
    assert json.loads(out) == {
        "url": store_url(),
        "tables": rows(),
        "latest_batch": None,
    }


def test_info_after_grading_and_importing(tmp_path: Path) -> None:
    invoke("grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path, "--branch", "main")
    invoke("store", "import", write_verdicts(tmp_path / "verdicts.jsonl", 4), "--tag", "k=v")
    with open_store() as store:
        latest = store.batches()[-1]
    code, out, _ = invoke("store", "info")
    assert code == 0
    when = latest.created_at.strftime("%Y-%m-%d %H:%M:%S")
    assert out.splitlines() == [
        f"store         {store_url()}",
        "batches       2",
        "runs          18",
        "grades        18",
        "verdicts      4",
        "calibrations  0",
        "promotions    0",
        f"latest batch  2 ({when} UTC, source import, branch feature/refunds, git 0123456789ab)",
    ]
    code, out, _ = invoke("store", "info", "--json")
    assert json.loads(out) == {
        "url": store_url(),
        "tables": rows(batches=2, runs=18, grades=18, verdicts=4),
        "latest_batch": {
            "id": 2,
            "created_at": latest.created_at.isoformat(),
            "source": "import",
            "branch": "feature/refunds",
            "git_sha": "0123456789abcdef0123456789abcdef01234567",
            "agent_version": None,
            "tags": {"k": "v"},
            "batch_key": f"import:{file_sha256(tmp_path / 'verdicts.jsonl')}",
            "shards": None,  # no shards share it
        },
    }


def test_info_never_shows_the_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEKIT_DB", "postgresql+psycopg://judge:hunter2@127.0.0.1:1/judgekit")
    code, out, err = invoke("store", "info")
    assert (code, out) == (2, "")
    assert err.startswith("judgekit: error: postgresql+psycopg://judge:***@127.0.0.1:1/judgekit: ")
    assert "hunter2" not in err


def test_importing_what_judge_or_run_recorded_adds_nothing(tmp_path: Path) -> None:
    verdicts = write_verdicts(tmp_path / "verdicts.jsonl", 10)
    with open_store() as store:  # as `judgekit judge` records them, in the runs' batch
        batch = store.batch(key="runs:judged")
        store.record_verdicts(
            [Verdict.model_validate(verdict(i)) for i in range(6)], batch_id=batch
        )
    code, out, _ = invoke("store", "import", verdicts)
    assert (code, out) == (
        0,
        f"{verdicts}: 4 verdicts recorded (batch 2); 6 already in the store, left out\n",
    )
    assert counts()["verdicts"] == 10

    # A run's folder holds its runs beside its results: those grades join the run's batch.
    code, _, _ = invoke(
        "run",
        "--tasks",
        SHOP_TASKS,
        "--agent",
        "examples.shop:agent",
        "--trials",
        "2",
        "--out",
        tmp_path / "out",
    )
    assert code == 0
    before = counts()
    code, out, _ = invoke("store", "import", tmp_path / "out" / "results.jsonl")
    assert code == 0
    assert counts() == before
