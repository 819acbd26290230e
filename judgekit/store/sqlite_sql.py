"""The SQL the store's SQLite recorder runs, rendered from the store's SQLAlchemy tables and
statements by :mod:`judgekit.store.sqlite_sql_source` (do not edit: run
``python -m judgekit.store.sqlite_sql_source``; a test keeps its values equal to the store's).
"""

from __future__ import annotations

from typing import Final

from judgekit.store.sqlite_values import Statement

MIGRATIONS: Final = (
    "0001_batches_and_verdicts",
    "0002_runs_grades_calibrations_promotions",
    "0003_grades_answer_passed",
    "0004_verdicts_confidence",
    "0005_verdict_day_totals",
)
MIGRATIONS_TABLE: Final = "migrations"
BATCH_ID_BY_KEY: Final = "SELECT batches.id \nFROM batches \nWHERE batches.batch_key = ?"
RUN_KEY: Final = ("batch_id", "run_id")
GRADE_KEY: Final = ("batch_id", "run_id")
VERDICT_KEY: Final = ("batch_id", "run_id", "rubric_id", "rubric_version", "model")
BATCH_INSERT: Final = Statement(
    sql="INSERT INTO batches (created_at, git_sha, agent_version, tags, batch_key, branch, source) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (batch_key) DO NOTHING",
    columns=("created_at", "git_sha", "agent_version", "tags", "batch_key", "branch", "source"),
    constants=(),
    time_columns=("created_at",),
    json_columns=("tags",),
)
RUN_UPSERT: Final = Statement(
    sql="INSERT INTO runs (batch_id, run_id, task_id, trial, stop_reason, turns, cost_usd, input_tokens, output_tokens, duration_s, at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (batch_id, run_id) DO UPDATE SET task_id = excluded.task_id, trial = excluded.trial, stop_reason = excluded.stop_reason, turns = excluded.turns, cost_usd = excluded.cost_usd, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, duration_s = excluded.duration_s, at = excluded.at, data = excluded.data",
    columns=(
        "batch_id",
        "run_id",
        "task_id",
        "trial",
        "stop_reason",
        "turns",
        "cost_usd",
        "input_tokens",
        "output_tokens",
        "duration_s",
        "at",
        "data",
    ),
    constants=(),
    time_columns=("at",),
    json_columns=("data",),
)
GRADE_UPSERT: Final = Statement(
    sql="INSERT INTO grades (batch_id, run_id, task_id, trial, passed, truth_passed, path_passed, state_passed, claimed_success, turns, cost_usd, stop_reason, tool_calls, tool_errors, at, day, data, answer_passed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (batch_id, run_id) DO UPDATE SET task_id = excluded.task_id, trial = excluded.trial, passed = excluded.passed, truth_passed = excluded.truth_passed, path_passed = excluded.path_passed, state_passed = excluded.state_passed, claimed_success = excluded.claimed_success, turns = excluded.turns, cost_usd = excluded.cost_usd, stop_reason = excluded.stop_reason, tool_calls = excluded.tool_calls, tool_errors = excluded.tool_errors, at = excluded.at, day = excluded.day, data = excluded.data, answer_passed = excluded.answer_passed",
    columns=(
        "batch_id",
        "run_id",
        "task_id",
        "trial",
        "passed",
        "truth_passed",
        "path_passed",
        "state_passed",
        "claimed_success",
        "turns",
        "cost_usd",
        "stop_reason",
        "tool_calls",
        "tool_errors",
        "at",
        "day",
        "data",
        "answer_passed",
    ),
    constants=(),
    time_columns=("at",),
    json_columns=("data",),
)
VERDICT_UPSERT: Final = Statement(
    sql="INSERT INTO verdicts (run_id, rubric_id, rubric_version, model, status, score, score_value, reason, samples, agreement, position_bias, unscored_reason, input_tokens, output_tokens, cost_usd, latency_s, cached, at, day, batch_id, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (batch_id, run_id, rubric_id, rubric_version, model) DO UPDATE SET status = excluded.status, score = excluded.score, score_value = excluded.score_value, reason = excluded.reason, samples = excluded.samples, agreement = excluded.agreement, position_bias = excluded.position_bias, unscored_reason = excluded.unscored_reason, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, cost_usd = excluded.cost_usd, latency_s = excluded.latency_s, cached = excluded.cached, at = excluded.at, day = excluded.day, confidence = excluded.confidence WHERE excluded.status != ? OR verdicts.status = ?",
    columns=(
        "run_id",
        "rubric_id",
        "rubric_version",
        "model",
        "status",
        "score",
        "score_value",
        "reason",
        "samples",
        "agreement",
        "position_bias",
        "unscored_reason",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "latency_s",
        "cached",
        "at",
        "day",
        "batch_id",
        "confidence",
    ),
    constants=("unscored", "unscored"),
    time_columns=("at",),
    json_columns=("score", "samples"),
)
