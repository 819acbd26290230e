"""The report's header and its sections on the graded runs: the suite, its tasks, failing runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judgekit._util.number_format import cost, mean_count, percent
from judgekit.report.cells import failed_fraction, interval_text, mean, rate, rate_ci
from judgekit.report.html_blocks import DASH, empty_note, escape, paragraph, table
from judgekit.report.report_data import ReportContent, RunEvidence
from judgekit.report.run_evidence import run_evidence
from judgekit.store.shard_status import ShardStatus

__all__ = ["header", "suite_section", "tasks_section"]


def header(content: ReportContent) -> str:
    meta = [
        f"generated {content.generated_at.isoformat(timespec='seconds')}",
        f"store {content.store_url}",
    ]
    if content.git_sha or content.git_branch:
        commit = content.git_sha or "unknown commit"
        meta.append(f"commit {commit}" + (f" ({content.git_branch})" if content.git_branch else ""))
    if content.only:
        meta.append(f"only {content.only}")
    return f"<header>\n<h1>{escape(content.title)}</h1>\n{paragraph(' · '.join(meta), 'meta')}\n</header>"


def suite_section(summary: Mapping[str, Any] | None, shards: ShardStatus | None = None) -> str:
    """The headline and counts of a suite's runs; for runs the shards of one run recorded,
    which shards are there and whether all the run's runs were graded (a part's pass rate
    is not the run's)."""
    if not summary or not summary.get("runs"):
        return empty_note()
    tasks = summary.get("tasks", [])
    failing = summary.get("failing_tasks", [])
    interval = interval_text(summary.get("pass_at_1_ci"))
    headline = f"pass@1 {rate(summary.get('pass_at_1'))}"
    if interval is not None:
        headline += f" (95% CI {interval})"
    lines = [
        f'<p class="headline"><strong>{escape(headline)}</strong></p>',
        paragraph(
            f"{summary.get('passed', 0)} of {summary['runs']} runs passed over {len(tasks)} tasks"
        ),
        paragraph(
            f"failing tasks ({len(failing)} of {len(tasks)}): {', '.join(failing) or 'none'}"
        ),
    ]
    if shards is not None:
        lines.append(paragraph(shards.describe(), "meta" if shards.complete else "alert"))
    return "\n".join(lines)


def tasks_section(
    summary: Mapping[str, Any] | None,
    evidence: Mapping[str, RunEvidence],
    run_shards: Mapping[str, str] | None = None,
) -> str:
    """The per-task table, then the failing runs: listed (with the shard that ran each,
    when ``run_shards`` names some), then each unfolded from ``evidence`` (its task,
    transcript, answer and the graders' reasons)."""
    tasks: list[Mapping[str, Any]] = list((summary or {}).get("tasks", []))
    if not tasks:
        return empty_note()
    k = (summary or {}).get("k", 1)
    checks = _checks(tasks)
    headers = [
        "task",
        "runs",
        "passed",
        "pass@1 (95% CI)",
        *([f"pass@{k}", f"pass^{k}"] if k > 1 else []),  # at k = 1 both are pass@1
        *(title for _, title in checks),
        "claimed success but failed",
        "violations",
        "tool calls refused",
        "mean turns",
        "mean cost (USD)",
    ]
    rows = [
        [
            task.get("task_id", ""),
            task.get("runs", 0),
            task.get("passed", 0),
            rate_ci(task.get("pass_at_1"), task.get("pass_at_1_ci")),
            *([rate(task.get("pass_at_k")), rate(task.get("pass_hat_k"))] if k > 1 else []),
            *(failed_fraction(task.get(name)) for name, _ in checks),
            task.get("claimed_success_but_failed", 0),
            task.get("violations", 0),
            percent(task.get("tool_error_rate"), decimals=0),
            mean(task.get("turns"), mean_count),
            mean(task.get("cost_usd"), cost),
        ]
        for task in tasks
    ]
    parts = [
        table(headers, rows),
        paragraph(
            f"{', '.join(name.capitalize() for name, _ in checks)} failed: runs each grader "
            "failed of those it graded (— not configured); "
            "claimed success but failed: failed runs whose answer claims success; "
            "tool calls refused: share of tool calls refused, expected or not.",
            "meta",
        ),
        _failures(tasks, evidence, run_shards or {}),
    ]
    return "\n".join(part for part in parts if part)


def _checks(tasks: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """Truth, Path and State, and Answer when some task was graded on it (a summary holds an
    answer tally only then), so a suite without expect_answer shows the table as before."""
    checks = [("truth", "Truth failed"), ("path", "Path failed"), ("state", "State failed")]
    if any("answer" in task for task in tasks):
        checks.append(("answer", "Answer failed"))
    return checks


def _failures(
    tasks: Sequence[Mapping[str, Any]],
    evidence: Mapping[str, RunEvidence],
    run_shards: Mapping[str, str],
) -> str:
    rows = [
        [task.get("task_id", ""), failure.get("run_id", ""), failure.get("reason", "")]
        for task in tasks
        for failure in task.get("failures", [])
    ]
    if not rows:
        return ""
    headers = ["task", "run", "first failure"]
    shown = rows
    if run_shards:
        headers.insert(2, "shard")
        shown = [[task, run_id, run_shards.get(run_id, DASH), why] for task, run_id, why in rows]
    more = [
        paragraph(f"{task.get('task_id', '')}: and {task['failures_not_shown']} more failing runs")
        for task in tasks
        if task.get("failures_not_shown")
    ]
    unfolded = [
        run_evidence(run_id, evidence.get(run_id), summary=reason) for _, run_id, reason in rows
    ]
    return "\n".join(
        [
            "<h3>Failing runs</h3>",
            table(headers, shown, text=True),
            *more,
            *(block for block in unfolded if block),
        ]
    )
