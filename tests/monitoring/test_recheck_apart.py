"""A recheck's verdicts are kept apart from production's: they re-judge old labelled runs to
test the judge, so they never enter the monitor's series, its alerts, its batch windows or the
report's rates — all read through the CLI, before and after a recheck on the same store."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.store import open_store
from judgekit.testing import FakeLLMServer
from tests.monitoring.test_recheck import TRUTH, judge_with_error_rate, promote_answer_ok

MODEL = "openai/gpt-4o-mini"
TODAY = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
DAYS = 8
PER_DAY, PASSES_PER_DAY = 100, 80  # production: 0.80 every day


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-recheck")


@pytest.fixture
def production(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A promoted rubric; eight days of production verdicts (one batch a day, 80 of 100
    passing, today's the last); 100 labelled runs (half pass, by the labels) in the store."""
    monkeypatch.chdir(tmp_path)
    path = promote_answer_ok(tmp_path, labelled_at=TODAY - timedelta(days=30))
    version = rubric_version(load_rubric(path))
    labelled = [
        Run(run_id=r, task_id="t", tool_calls=[], final_answer=f"Done as asked (run {r}).")
        for r in TRUTH
    ]
    with open_store() as store:
        store.record_runs(labelled, store.batch(key="runs:labelled", source="run"))
        for day in range(DAYS):
            at = TODAY - timedelta(days=DAYS - 1 - day) + timedelta(minutes=1)
            batch = store.batch(key=f"runs:day{day}", source="judge")
            store.record_verdicts(
                (
                    Verdict(
                        run_id=f"shop/p{day}/{i}",
                        rubric_id="answer_ok",
                        rubric_version=version,
                        model=MODEL,
                        status="scored",
                        score="pass" if i < PASSES_PER_DAY else "fail",
                        at=at + timedelta(seconds=i),
                    )
                    for i in range(PER_DAY)
                ),
                batch,
            )
    return tmp_path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code in (0, 1), (result.output, result.exception)
    return result.exit_code, result.stdout


def monitor_json(*args: str) -> tuple[int, dict[str, Any]]:
    code, out = run("monitor", "--rubric", "answer_ok", "--json", *args)
    return code, json.loads(out)


def recheck_holding_kappa() -> dict[str, Any]:
    """Recheck the 100 labelled runs with a judge that still agrees with the labels: its
    verdicts pass half of them, where production passes 80 of 100."""
    with FakeLLMServer(reply=judge_with_error_rate(0.03)) as server:
        code, out = run("recheck", "answer_ok", "--base-url", server.openai_base_url, "--json")
        assert server.calls == 100
    assert code == 0
    found: dict[str, Any] = json.loads(out)["recheck"]
    assert (found["drifted"], found["now"]["n"]) == (False, 100)
    return found


def rubric_points(report: dict[str, Any]) -> list[tuple[str, int, float]]:
    [series] = [s for s in report["series"] if s["metric"] == "rubric:answer_ok"]
    return [(p["label"], p["n"], p["value"]) for p in series["points"]]


def test_the_daily_series_and_its_alerts_are_the_same_after_a_recheck(production: Path) -> None:
    code, before = monitor_json()
    assert code == 0
    days = [(TODAY - timedelta(days=DAYS - 1 - d)).date().isoformat() for d in range(DAYS)]
    assert rubric_points(before) == [(day, 100, 0.8) for day in days]
    recheck_holding_kappa()
    code, after = monitor_json()
    assert code == 0  # today's rate is production's 0.80, not 0.65 with the recheck's 50/100
    assert after["alerts"] == []
    assert after["series"] == before["series"]
    assert after["rubrics"] == before["rubrics"]
    # The recheck stays readable: its own batch holds its 100 verdicts.
    with open_store() as store:
        [batch] = store.batches(source="recheck")
        assert batch.batch_key is not None and batch.batch_key.startswith("recheck:answer_ok:")
        history = store.verdicts("answer_ok", history=True)
        assert len(history) == DAYS * PER_DAY + 100
        assert sum(v.run_id in TRUTH for v in history) == 100


def test_by_batch_has_no_recheck_window(production: Path) -> None:
    _, before = monitor_json("--by", "batch")
    recheck_holding_kappa()
    code, after = monitor_json("--by", "batch")
    assert code == 0
    with open_store() as store:
        [recheck] = store.batches(source="recheck")
        production_batches = [b.id for b in store.batches(source="judge")]
    labels = [label for label, _, _ in rubric_points(after)]
    assert labels == [f"batch {batch}" for batch in production_batches]
    assert f"batch {recheck.id}" not in labels
    assert rubric_points(after)[-1][1:] == (100, 0.8)
    assert after["series"] == before["series"]
    assert after["alerts"] == []


def test_a_suite_filter_reads_the_verdicts_and_leaves_the_recheck_out_too(
    production: Path,
) -> None:
    """--suite reads the verdicts themselves (not their daily totals): the same rule holds."""
    with open_store() as store:  # the labelled runs' suite has production verdicts today
        batch = store.batch(key="runs:labelled")
        store.record_runs(
            [
                Run(run_id=f"shop/p{DAYS - 1}/{i}", task_id=f"p{DAYS - 1}", tool_calls=[])
                for i in range(PER_DAY)
            ],
            batch,
        )
    _, before = monitor_json("--suite", "shop")
    assert rubric_points(before)[-1][1:] == (100, 0.8)
    recheck_holding_kappa()
    _, after = monitor_json("--suite", "shop")
    assert rubric_points(after) == rubric_points(before)


def metrics_row(html: str, metric: str) -> str:
    [row] = re.findall(rf"<tr><td>{re.escape(metric)}</td>.*?</tr>", html)
    return row


def test_the_report_s_rates_are_the_same_after_a_recheck(production: Path) -> None:
    code, out = run("report", "-o", "before.html", "--rubric", "answer_ok")
    assert code == 0
    before = (production / "before.html").read_text()
    recheck_holding_kappa()
    code, out = run("report", "-o", "after.html", "--rubric", "answer_ok")
    assert code == 0
    assert out.startswith("wrote after.html: no graded runs, 1 metrics, 0 alerts, ")
    after = (production / "after.html").read_text()
    today = TODAY.date().isoformat()
    assert metrics_row(after, "rubric:answer_ok") == metrics_row(before, "rubric:answer_ok")
    assert metrics_row(after, "rubric:answer_ok").startswith(
        f"<tr><td>rubric:answer_ok</td><td>answer_ok (promoted)</td><td>gating</td><td>{today}</td>"
    )
    assert "<td>100</td>" in metrics_row(after, "rubric:answer_ok")
    assert "the latest window is worse than the baseline" not in after
