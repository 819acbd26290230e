"""A store as a team's CI fills it: two suites (shop, travel), main's nightly batches and a
pull request's batch, tagged and versioned — for the filter tests of monitor, report, gate."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from judgekit.formats.grade import Grade, GraderResult
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.store import open_store

TODAY = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
RUBRIC = "goal_completion"

# (key, days ago, branch, tags, agent version, {suite: (task ids, runs, passes)})
BATCHES = [
    ("main-1", 3, "main", {"env": "nightly"}, "1.0", {"shop": 8, "travel": 5}),
    ("main-2", 2, "main", {"env": "nightly"}, "1.1", {"shop": 7, "travel": 6}),
    ("pr-9", 1, "feature/x", {"env": "pr"}, "1.2", {"shop": 0, "travel": 9}),
]
TASKS = {"shop": ("refund_full", "cancel_order"), "travel": ("weather-gate-book",)}
RUNS_PER_SUITE = 10


def day(days_ago: int) -> str:
    return (TODAY - timedelta(days=days_ago)).date().isoformat()


def record_two_suites() -> dict[str, int]:
    """Record the batches in the default store (JUDGEKIT_HOME's SQLite file); their ids."""
    ids: dict[str, int] = {}
    with open_store() as store:
        for key, ago, branch, tags, version, passes in BATCHES:
            at = TODAY - timedelta(days=ago)
            batch = store.batch(
                key=f"runs:{key}", branch=branch, tags=tags, agent_version=version, source="run"
            )
            ids[key] = batch
            grades, runs, verdicts = [], [], []
            for suite, passed in passes.items():
                for i in range(RUNS_PER_SUITE):
                    task = TASKS[suite][i % len(TASKS[suite])]
                    run_id, ok = f"{suite}/{task}/{i}", i < passed
                    runs.append(Run(run_id=run_id, task_id=task, tool_calls=[]))
                    grades.append(
                        Grade(
                            run_id=run_id,
                            task_id=task,
                            passed=ok,
                            truth=GraderResult(passed=ok, reason="r"),
                            turns=3,
                            cost_usd=0.01,
                        )
                    )
                    verdicts.append(
                        Verdict(
                            run_id=run_id,
                            rubric_id=RUBRIC,
                            rubric_version="v1",
                            model="openai/gpt-4o-mini",
                            status="scored",
                            score="pass" if ok else "fail",
                            at=at,
                        )
                    )
            store.record_runs(runs, batch)
            store.record_grades(grades, batch, at=at)
            store.record_verdicts(verdicts, batch)
    return ids
