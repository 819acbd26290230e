"""The nightly loop over three nights of production traces, with the real SDKs against the
fake server: import the night's transcripts, judge a --sample of them into the store under
--max-cost-per-day with --review, then `judgekit monitor --by batch`, which raises the
coverage alert on the night the selective judge starts abstaining."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from scipy.stats import binom

from judgekit.cli import main
from judgekit.formats.queue_file import read_queue_log
from judgekit.judging.run_sample import parse_sample
from judgekit.testing import FakeLLMServer
from tests.conftest import REPO
from tests.promoted import hesitant_judge, selective_rubric

RUNS_PER_NIGHT = 200
QUESTION = "Order A100 arrived broken. Refund it in full."


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-nightly-0123456789")


def night_transcripts(path: Path, night: int, *, unsure_every: int, first: int = 0) -> Path:
    """The night's OpenAI transcripts, one a line; every ``unsure_every``-th answer makes
    the judge hesitate."""
    lines = []
    for i in range(first, first + RUNS_PER_NIGHT):
        unsure = ", unsure" if i % unsure_every == 0 else ""
        lines.append(
            {
                "run_id": f"prod/{i}",
                "task_id": "refund_full",
                "messages": [
                    {"role": "user", "content": QUESTION},
                    {"role": "assistant", "content": f"Refund of $40 issued (ticket {i}{unsure})."},
                ],
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def invoke(*args: str | Path, exit_code: int = 0) -> Any:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == exit_code, (result.output, result.exception)
    return json.loads(result.stdout) if "--json" in args else result.stdout


def test_three_nights_sampled_judged_queued_and_the_coverage_drop_alerts(
    tmp_path: Path,
) -> None:
    rubric = selective_rubric(tmp_path)
    labels = tmp_path / "labels"
    # Night 2's window overlaps night 1's by half; on night 3 one answer in three makes the
    # judge hesitate, where one in forty did.
    nights = [
        night_transcripts(tmp_path / "night1.jsonl", 1, unsure_every=40),
        night_transcripts(tmp_path / "night2.jsonl", 2, unsure_every=40, first=100),
        night_transcripts(tmp_path / "night3.jsonl", 3, unsure_every=3, first=300),
    ]
    reports = []
    with FakeLLMServer(reply=hesitant_judge()) as server:
        for number, transcripts in enumerate(nights, start=1):
            runs = tmp_path / f"night{number}" / "runs.jsonl"
            invoke("import", "openai", transcripts, "-o", runs)
            reports.append(
                invoke(
                    "judge", runs, "--rubric", rubric, "--tasks", REPO / "tasks",
                    "--base-url", server.openai_base_url, "--out", runs.parent,
                    "--sample", "50%", "--max-cost-per-day", "5", "--review", "5%",
                    "--labels-dir", labels, "--json",
                )
            )  # fmt: skip
    sample = parse_sample("50%")
    picked = [
        sample.select("goal_completion", [(f"prod/{i}", "refund_full") for i in ids])
        for ids in (range(0, 200), range(100, 300), range(300, 500))
    ]
    assert [r["sample"]["picked"] for r in reports] == [len(p) for p in picked] == [100, 99, 108]
    assert [r["verdicts"] for r in reports] == [100, 99, 108]
    # The overlap is judged on both nights, its verdicts the cache's the second time.
    overlap = set(picked[0]) & set(picked[1])
    assert overlap == {r for r in picked[0] if int(r.split("/")[1]) >= 100}
    assert reports[1]["cache_hits"] == 5 * len(overlap)
    assert [r["abstained"] for r in reports] == [3, 2, 34]
    assert all(not r["stopped_by_budget"] for r in reports)
    # Every abstained verdict went to the queue, and 5% of the rest by the review hash.
    entered = read_queue_log(labels / "goal_completion.jsonl").entered
    abstained = {run for run, entry in entered.items() if entry.queued == "abstained"}
    assert abstained == {
        verdict["run_id"]
        for number in (1, 2, 3)
        for verdict in map(json.loads, (tmp_path / f"night{number}/verdicts.jsonl").open())
        if verdict["status"] == "abstained"
    }
    assert (len(abstained), len(entered)) == (38, 46)  # one run abstained on two nights
    monitored = invoke("monitor", "--rubric", rubric, "--by", "batch", "--json", exit_code=1)
    coverage = {s["metric"]: s for s in monitored["series"]}["coverage:goal_completion"]
    assert [(p["n"], p["successes"]) for p in coverage["points"]] == [
        (100, 97),
        (99, 97),
        (108, 74),
    ]
    (alert,) = monitored["alerts"]
    assert alert["metric"] == "coverage:goal_completion"
    assert alert["p_value"] == pytest.approx(float(binom.cdf(74, 108, 0.9)), rel=1e-9)
    assert alert["message"] == (
        "coverage 68.5% in batch 3 (74 of 108 verdicts kept, 34 abstained), below the "
        "promoted 90.0%; one-sided exact binomial p < 0.0001, alpha 0.01"
    )
