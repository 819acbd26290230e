"""`judgekit gate` with the store: baselines by reference, promoted rubrics gating, drafts
reported only."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.grade import Grade
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.store import Store, open_store
from tests.conftest import REPO
from tests.promoted import balanced, promote_for_real

AT = datetime(2026, 11, 28, tzinfo=UTC)
MODEL = "openai/gpt-4o-mini"


def grades(prefix: str, n: int, passed: int) -> list[Grade]:
    return [Grade(run_id=f"{prefix}/{i}", task_id="refund", passed=i < passed) for i in range(n)]


def verdicts(rubric_id: str, version: str, prefix: str, n: int, passed: int) -> list[Verdict]:
    return [
        Verdict(
            run_id=f"{prefix}/{i}",
            rubric_id=rubric_id,
            rubric_version=version,
            model=MODEL,
            status="scored",
            score="pass" if i < passed else "fail",
            at=AT,
        )
        for i in range(n)
    ]


@pytest.fixture
def rubrics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """goal_completion promoted, goal_draft a draft; their versions by id."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "rubrics"
    folder.mkdir()
    shutil.copy(REPO / "rubrics" / "goal_completion.yaml", folder)
    text = (folder / "goal_completion.yaml").read_text()
    (folder / "goal_draft.yaml").write_text(text.replace("id: goal_completion", "id: goal_draft"))
    promote_for_real(folder / "goal_completion.yaml", balanced())
    return {
        r: rubric_version(load_rubric(folder / f"{r}.yaml"))
        for r in ("goal_completion", "goal_draft")
    }


def two_batches(store: Store) -> tuple[int, int]:
    main_batch = store.batch(key="runs:main", branch="main", source="run")
    store.record_grades(grades("m", 100, 80), main_batch)
    pr_batch = store.batch(key="runs:pr", branch="feature", source="run")
    store.record_grades(grades("p", 100, 79), pr_batch)
    return main_batch, pr_batch


def gate(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["gate", *args])
    return result.exit_code, result.stdout, result.stderr


def test_the_baseline_can_come_from_the_store_by_branch(rubrics: dict[str, str]) -> None:
    with open_store() as store:
        older = store.batch(key="runs:old-main", branch="main")
        store.record_grades(grades("o", 100, 20), older)
        _, pr_batch = two_batches(store)
    code, out, _ = gate("--baseline", "latest:main", "--candidate", f"batch:{pr_batch}", "--json")
    assert code == 0
    report = json.loads(out)
    [task] = report["tasks"]
    assert (task["baseline"]["passes"], task["candidate"]["passes"]) == (80, 79)


def test_a_promoted_rubric_that_dropped_fails_the_gate(rubrics: dict[str, str]) -> None:
    with open_store() as store:
        main_batch, pr_batch = two_batches(store)
        store.record_verdicts(
            verdicts("goal_completion", rubrics["goal_completion"], "m", 100, 80), main_batch
        )
        store.record_verdicts(
            verdicts("goal_completion", rubrics["goal_completion"], "p", 100, 60), pr_batch
        )
        store.record_verdicts(
            verdicts("goal_draft", rubrics["goal_draft"], "m", 100, 90), main_batch
        )
        store.record_verdicts(verdicts("goal_draft", rubrics["goal_draft"], "p", 100, 50), pr_batch)
    code, out, _ = gate(
        "--baseline", "latest:main", "--candidate", f"batch:{pr_batch}", "--rubric", "rubrics"
    )
    assert code == 1
    lines = out.splitlines()
    assert (
        "FAIL rubric goal_completion: pass-rate drop 0.80 (80/100) → 0.60 (60/100), one-sided p = 0.001"
        in lines
    )
    assert (
        "note rubric goal_draft (draft, informational): 0.90 (90/100) → 0.50 (50/100), one-sided p < 0.0001"
        in lines
    )
    assert lines[-1] == "gate: FAIL: 1 promoted rubric dropped: goal_completion"


def test_a_draft_rubric_alone_never_fails_the_gate(rubrics: dict[str, str]) -> None:
    with open_store() as store:
        main_batch, pr_batch = two_batches(store)
        store.record_verdicts(
            verdicts("goal_draft", rubrics["goal_draft"], "m", 100, 90), main_batch
        )
        store.record_verdicts(verdicts("goal_draft", rubrics["goal_draft"], "p", 100, 50), pr_batch)
    code, out, _ = gate(
        "--baseline",
        f"batch:{main_batch}",
        "--candidate",
        f"batch:{pr_batch}",
        "--rubric",
        "goal_draft",
        "--json",
    )
    assert code == 0
    [rubric] = json.loads(out)["rubrics"]
    assert (rubric["role"], rubric["verdict"]) == ("informational", "info")


def test_an_unknown_reference_is_a_one_line_error(rubrics: dict[str, str], tmp_path: Path) -> None:
    with open_store() as store:
        two_batches(store)
    code, _, err = gate("--baseline", "latest:release", "--candidate", "batch:2")
    assert code == 2
    assert err == (
        f"judgekit: error: sqlite:///{tmp_path}/.judgekit/judgekit.sqlite: no batch with grades "
        "matches latest:release\n"
    )
    code, _, err = gate("--baseline", "latest:", "--candidate", "batch:2")
    assert code == 2
    assert re.search(r"expected batch:ID or latest:BRANCH", err)


def test_rubrics_need_batches_on_both_sides(rubrics: dict[str, str], tmp_path: Path) -> None:
    results = tmp_path / "pr" / "results.jsonl"
    results.parent.mkdir()
    results.write_text("".join(g.model_dump_json() + "\n" for g in grades("p", 10, 9)))
    with open_store() as store:
        two_batches(store)
    code, _, err = gate(
        "--baseline", "latest:main", "--candidate", str(results), "--rubric", "goal_completion"
    )
    assert code == 2
    assert err.endswith(
        f"--rubric compares verdicts between two batches of the store, and {results} has none: "
        "give batch:ID or latest:BRANCH, or a results folder whose runs.jsonl was judged with "
        "the store on (see judgekit gate --help)\n"
    )
