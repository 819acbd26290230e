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
NEW_STORE_SCHEMA: Final = (
    "CREATE TABLE batches (\n\tid INTEGER NOT NULL, \n\tcreated_at VARCHAR(32) NOT NULL, \n\tgit_sha VARCHAR(64), \n\tagent_version VARCHAR(200), \n\ttags JSON, batch_key VARCHAR(200), branch VARCHAR(200), source VARCHAR(40), \n\tPRIMARY KEY (id)\n)",
    "CREATE TABLE calibrations (\n\tid INTEGER NOT NULL, \n\trubric_id VARCHAR NOT NULL, \n\trubric_version VARCHAR NOT NULL, \n\tmodel VARCHAR NOT NULL, \n\tat VARCHAR(32) NOT NULL, \n\tn INTEGER NOT NULL, \n\tagreement FLOAT, \n\tkappa FLOAT, \n\tkappa_low FLOAT, \n\tkappa_high FLOAT, \n\tpromotable BOOLEAN NOT NULL, \n\tdigest VARCHAR(64) NOT NULL, \n\tdata JSON NOT NULL, \n\tPRIMARY KEY (id), \n\tCONSTRAINT uq_calibrations_rubric_digest UNIQUE (rubric_id, digest)\n)",
    "CREATE TABLE grades (\n\tid INTEGER NOT NULL, \n\tbatch_id INTEGER NOT NULL, \n\trun_id VARCHAR NOT NULL, \n\ttask_id VARCHAR NOT NULL, \n\ttrial INTEGER, \n\tpassed BOOLEAN NOT NULL, \n\ttruth_passed BOOLEAN, \n\tpath_passed BOOLEAN, \n\tstate_passed BOOLEAN, \n\tclaimed_success BOOLEAN, \n\tturns INTEGER, \n\tcost_usd FLOAT, \n\tstop_reason VARCHAR(40), \n\ttool_calls INTEGER NOT NULL, \n\ttool_errors INTEGER NOT NULL, \n\tat VARCHAR(32) NOT NULL, \n\tday VARCHAR(10) NOT NULL, \n\tdata JSON NOT NULL, answer_passed BOOLEAN, \n\tPRIMARY KEY (id), \n\tCONSTRAINT uq_grades_batch_run UNIQUE (batch_id, run_id), \n\tFOREIGN KEY(batch_id) REFERENCES batches (id)\n)",
    "CREATE TABLE migrations (\n\tname VARCHAR(200) NOT NULL, \n\tapplied_at VARCHAR(32) NOT NULL, \n\tPRIMARY KEY (name)\n)",
    "CREATE TABLE promotions (\n\tid INTEGER NOT NULL, \n\trubric_id VARCHAR NOT NULL, \n\trubric_version VARCHAR NOT NULL, \n\tmodel VARCHAR NOT NULL, \n\tat VARCHAR(32) NOT NULL, \n\tstatus VARCHAR(16) NOT NULL, \n\tkappa FLOAT, \n\treason TEXT, \n\tdata JSON NOT NULL, \n\tPRIMARY KEY (id), \n\tCONSTRAINT uq_promotions_event UNIQUE (rubric_id, rubric_version, model, at)\n)",
    "CREATE TABLE runs (\n\tid INTEGER NOT NULL, \n\tbatch_id INTEGER NOT NULL, \n\trun_id VARCHAR NOT NULL, \n\ttask_id VARCHAR NOT NULL, \n\ttrial INTEGER, \n\tstop_reason VARCHAR(40), \n\tturns INTEGER, \n\tcost_usd FLOAT, \n\tinput_tokens INTEGER, \n\toutput_tokens INTEGER, \n\tduration_s FLOAT, \n\tat VARCHAR(32) NOT NULL, \n\tdata JSON NOT NULL, \n\tPRIMARY KEY (id), \n\tCONSTRAINT uq_runs_batch_run UNIQUE (batch_id, run_id), \n\tFOREIGN KEY(batch_id) REFERENCES batches (id)\n)",
    "CREATE TABLE verdict_day_totals (rubric_id VARCHAR NOT NULL, rubric_version VARCHAR NOT NULL, model VARCHAR NOT NULL, day VARCHAR(10) NOT NULL, batch_id INTEGER NOT NULL, verdicts INTEGER NOT NULL, scores INTEGER NOT NULL, score_sum FLOAT NOT NULL, score_squares FLOAT NOT NULL, inexact INTEGER NOT NULL, judged INTEGER NOT NULL, kept INTEGER NOT NULL, CONSTRAINT pk_verdict_day_totals PRIMARY KEY (rubric_id, rubric_version, model, day, batch_id)) WITHOUT ROWID",
    "CREATE TABLE verdict_day_totals_mark (verdict_id INTEGER NOT NULL)",
    'CREATE TABLE "verdicts" (\n\tid INTEGER NOT NULL, \n\trun_id VARCHAR NOT NULL, \n\trubric_id VARCHAR NOT NULL, \n\trubric_version VARCHAR NOT NULL, \n\tmodel VARCHAR NOT NULL, \n\tstatus VARCHAR(16) NOT NULL, \n\tscore JSON, \n\tscore_value FLOAT, \n\treason TEXT, \n\tsamples JSON, \n\tagreement FLOAT, \n\tposition_bias BOOLEAN, \n\tunscored_reason TEXT, \n\tinput_tokens INTEGER NOT NULL, \n\toutput_tokens INTEGER NOT NULL, \n\tcost_usd FLOAT, \n\tlatency_s FLOAT, \n\tcached BOOLEAN NOT NULL, \n\tat VARCHAR(32) NOT NULL, \n\tday VARCHAR(10) NOT NULL, \n\tbatch_id INTEGER NOT NULL, confidence FLOAT, \n\tPRIMARY KEY (id), \n\tCONSTRAINT uq_verdicts_batch_run_rubric_model UNIQUE (batch_id, run_id, rubric_id, rubric_version, model), \n\tFOREIGN KEY(batch_id) REFERENCES batches (id)\n)',
    "CREATE INDEX ix_batches_branch ON batches (branch, created_at)",
    "CREATE INDEX ix_calibrations_rubric ON calibrations (rubric_id, at)",
    "CREATE INDEX ix_grades_at ON grades (at)",
    "CREATE INDEX ix_grades_day ON grades (day)",
    "CREATE INDEX ix_promotions_rubric ON promotions (rubric_id, at)",
    "CREATE INDEX ix_runs_run_id ON runs (run_id)",
    "CREATE INDEX ix_verdicts_rubric ON verdicts (rubric_id, rubric_version, model, at)",
    "CREATE UNIQUE INDEX uq_batches_batch_key ON batches (batch_key)",
    "CREATE TRIGGER verdict_day_totals_delete AFTER DELETE ON verdicts BEGIN INSERT INTO verdict_day_totals (rubric_id, rubric_version, model, day, batch_id, verdicts, scores, score_sum, score_squares, inexact, judged, kept) SELECT OLD.rubric_id, OLD.rubric_version, OLD.model, OLD.day, OLD.batch_id, -1, -(OLD.score_value IS NOT NULL), -coalesce(OLD.score_value, 0), -coalesce(OLD.score_value * OLD.score_value, 0), 0, -(OLD.status IN ('scored', 'abstained')), -(OLD.status = 'scored') WHERE OLD.id <= (SELECT verdict_id FROM verdict_day_totals_mark) ON CONFLICT (rubric_id, rubric_version, model, day, batch_id) DO UPDATE SET verdicts = verdict_day_totals.verdicts + excluded.verdicts, scores = verdict_day_totals.scores + excluded.scores, score_sum = verdict_day_totals.score_sum + excluded.score_sum, score_squares = verdict_day_totals.score_squares + excluded.score_squares, inexact = verdict_day_totals.inexact + excluded.inexact, judged = verdict_day_totals.judged + excluded.judged, kept = verdict_day_totals.kept + excluded.kept; UPDATE verdict_day_totals_mark SET verdict_id = min(verdict_id, coalesce((SELECT max(id) FROM verdicts), 0)); END",
    "CREATE TRIGGER verdict_day_totals_update AFTER UPDATE ON verdicts BEGIN INSERT INTO verdict_day_totals (rubric_id, rubric_version, model, day, batch_id, verdicts, scores, score_sum, score_squares, inexact, judged, kept) SELECT OLD.rubric_id, OLD.rubric_version, OLD.model, OLD.day, OLD.batch_id, -1, -(OLD.score_value IS NOT NULL), -coalesce(OLD.score_value, 0), -coalesce(OLD.score_value * OLD.score_value, 0), 0, -(OLD.status IN ('scored', 'abstained')), -(OLD.status = 'scored') WHERE OLD.id <= (SELECT verdict_id FROM verdict_day_totals_mark) ON CONFLICT (rubric_id, rubric_version, model, day, batch_id) DO UPDATE SET verdicts = verdict_day_totals.verdicts + excluded.verdicts, scores = verdict_day_totals.scores + excluded.scores, score_sum = verdict_day_totals.score_sum + excluded.score_sum, score_squares = verdict_day_totals.score_squares + excluded.score_squares, inexact = verdict_day_totals.inexact + excluded.inexact, judged = verdict_day_totals.judged + excluded.judged, kept = verdict_day_totals.kept + excluded.kept; INSERT INTO verdict_day_totals (rubric_id, rubric_version, model, day, batch_id, verdicts, scores, score_sum, score_squares, inexact, judged, kept) SELECT NEW.rubric_id, NEW.rubric_version, NEW.model, NEW.day, NEW.batch_id, 1, (NEW.score_value IS NOT NULL), coalesce(NEW.score_value, 0), coalesce(NEW.score_value * NEW.score_value, 0), (CASE WHEN NEW.score_value IS NOT NULL AND NOT (NEW.score_value = round(NEW.score_value) AND abs(NEW.score_value) <= 1000) THEN 1 ELSE 0 END), (NEW.status IN ('scored', 'abstained')), (NEW.status = 'scored') WHERE NEW.id <= (SELECT verdict_id FROM verdict_day_totals_mark) ON CONFLICT (rubric_id, rubric_version, model, day, batch_id) DO UPDATE SET verdicts = verdict_day_totals.verdicts + excluded.verdicts, scores = verdict_day_totals.scores + excluded.scores, score_sum = verdict_day_totals.score_sum + excluded.score_sum, score_squares = verdict_day_totals.score_squares + excluded.score_squares, inexact = verdict_day_totals.inexact + excluded.inexact, judged = verdict_day_totals.judged + excluded.judged, kept = verdict_day_totals.kept + excluded.kept; END",
)
NEW_STORE_ROWS: Final = (("verdict_day_totals_mark", ("verdict_id",), ((0,),)),)
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
