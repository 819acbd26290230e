"""The nightly workflow example is a scheduled workflow whose judgekit commands all parse
(checked as the pull-request examples are, tests/test_github_actions_example.py): it exports
the last day's traces, imports them, judges a sample under the day's cap with review, and
monitors, in that order."""

from __future__ import annotations

import judgekit
from tests.cli.test_help import assert_parses
from tests.conftest import REPO
from tests.test_github_actions_example import (
    comment_commands,
    job_steps,
    load,
    run_commands,
    triggers,
)

NIGHTLY = REPO / "examples" / "nightly" / "judgekit-nightly.yml"


def test_it_runs_on_a_schedule_and_by_hand_only() -> None:
    workflow = load(NIGHTLY)
    assert triggers(workflow) == {"schedule": [{"cron": "15 2 * * *"}], "workflow_dispatch": None}
    assert workflow["env"]["JUDGEKIT_DB"] == "${{ secrets.JUDGEKIT_DB }}"
    assert workflow["permissions"] == {"contents": "write"}


def test_every_judgekit_command_parses() -> None:
    commands = run_commands(NIGHTLY) + comment_commands(NIGHTLY)
    assert [c.args[0] for c in commands] == ["import", "judge", "monitor", "label", "monitor"]
    for command in commands:
        assert_parses(command.expanded)


def test_the_night_is_exported_imported_judged_queued_and_monitored_in_order() -> None:
    steps = job_steps(NIGHTLY, "nightly")
    runs = [step.get("run", "") for step in steps]
    assert f'pip install "judgekit-agents[postgres]=={judgekit.__version__}" langfuse' in runs
    export = next(i for i, run in enumerate(runs) if "export_langfuse.py" in run)
    assert runs[export] == "python examples/nightly/export_langfuse.py --hours 24 -o traces.jsonl"
    assert (REPO / "examples" / "nightly" / "export_langfuse.py").is_file()
    imported, judged, monitored = run_commands(NIGHTLY)
    assert imported.args == ["import", "langfuse", "traces.jsonl", "-o", "nightly/runs.jsonl"]
    assert judged.args[:2] == ["judge", "nightly/runs.jsonl"]
    assert judged.option("--sample") == "10%"
    assert judged.option("--max-cost-per-day") == "5"
    assert judged.option("--review") == "5%"
    assert "--no-store" not in judged.args
    assert monitored.option("--by") == "batch"
    assert monitored.option("--branch") == judged.option("--branch") == "main"
    # Stopping at the day's cap (exit 1) still commits the queue and monitors.
    after_judging = steps[runs.index(next(r for r in runs if "judgekit judge" in r)) + 1 :]
    assert all(step.get("if") == "always()" for step in after_judging)
    assert "git add labels/*.queue.jsonl" in after_judging[0]["run"]
