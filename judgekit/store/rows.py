"""What judgekit records, turned into the rows of the store's tables (no SQL here): a verdict,
a run, a grade, a calibration report, a promotion record."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.store.score_value import score_value

if TYPE_CHECKING:
    from judgekit.formats.grade import Grade  # grades are only passed through here

# Scores that are JSON values as they are (a float only when finite: JSON mode makes an
# infinite one null).
_JSON_SCALARS: Final = (str, int, type(None))


def verdict_row(verdict: Verdict, batch_id: int) -> dict[str, Any]:
    """A verdict's row in ``verdicts``."""
    # What model_dump(mode="json") gives, built field by field, which pays since the store
    # records verdicts by the hundred thousand: score and samples as plain JSON
    # values; `at` stays a datetime for the UtcDateTime column.
    row = dict(verdict.__dict__)
    if not _is_json_scalar(verdict.score):
        row["score"] = verdict.model_dump(mode="json", include={"score"})["score"]
    if verdict.samples is not None:
        row["samples"] = [sample.model_dump(mode="json") for sample in verdict.samples]
    if verdict.jurors is not None:
        row["jurors"] = [juror.model_dump(mode="json") for juror in verdict.jurors]
    row["day"] = utc_day(verdict.at)
    row["batch_id"] = batch_id
    row["score_value"] = score_value(verdict.score) if verdict.status == "scored" else None
    return row


def _is_json_scalar(score: Any) -> bool:
    return isinstance(score, _JSON_SCALARS) or (isinstance(score, float) and math.isfinite(score))


def run_row(run: Run, batch_id: int, at: datetime, shard: str | None = None) -> dict[str, Any]:
    """A run's row in ``runs``: the whole run as JSON, the columns reports filter on, and
    the ``shard`` ("I/N") of a sharded run that recorded it."""
    usage = run.usage
    return {
        "batch_id": batch_id,
        "run_id": run.run_id,
        # A run of a plain answer may name no task: the column holds "", its data no task_id.
        "task_id": run.task_id if run.task_id is not None else "",
        "trial": run.trial,
        "stop_reason": run.stop_reason,
        "turns": run.turns,
        "cost_usd": run.cost_usd,
        "input_tokens": usage.input_tokens if usage else None,
        "output_tokens": usage.output_tokens if usage else None,
        "duration_s": run.duration_s,
        "at": at,
        "data": run.model_dump(mode="json", exclude_defaults=True),
        "shard": shard,
    }


def grade_row(grade: Grade, batch_id: int, at: datetime) -> dict[str, Any]:
    """A grade's row in ``grades``: the whole grade as JSON, and the columns the monitor sums."""
    return {
        "batch_id": batch_id,
        "run_id": grade.run_id,
        "task_id": grade.task_id,
        "trial": grade.trial,
        "passed": grade.passed,
        "truth_passed": grade.truth.passed if grade.truth else None,
        "path_passed": grade.path.passed if grade.path else None,
        "state_passed": grade.state.passed if grade.state else None,
        "answer_passed": grade.answer.passed if grade.answer else None,
        "claimed_success": grade.claimed_success,
        "turns": grade.turns,
        "cost_usd": grade.cost_usd,
        "stop_reason": grade.stop_reason,
        "tool_calls": grade.tool_calls,
        "tool_errors": grade.tool_errors,
        "at": at,
        "day": utc_day(at),
        "data": grade.model_dump(mode="json", exclude_defaults=True),
    }


def calibration_row(report: Mapping[str, Any], at: datetime) -> dict[str, Any]:
    """A calibration report's row in ``calibrations``, keyed by the digest of its JSON."""
    body = json.dumps(report, sort_keys=True, default=str)
    interval = report.get("kappa_ci") or [None, None]
    return {
        "rubric_id": report["rubric_id"],
        "rubric_version": report["rubric_version"],
        "model": report.get("model") or "",
        "at": at,
        "n": int(report.get("n") or 0),
        "agreement": report.get("agreement"),
        "kappa": report.get("kappa"),
        "kappa_low": interval[0],
        "kappa_high": interval[1],
        "promotable": bool(report.get("promotable")),
        "digest": hashlib.sha256(body.encode()).hexdigest(),
        "data": json.loads(body),
    }


def promotion_row(
    record: Mapping[str, Any], *, status: str, reason: str | None, at: datetime
) -> dict[str, Any]:
    """A promotion record's row in ``promotions`` (or, with status ``stale``, its recheck's)."""
    return {
        "rubric_id": record["rubric_id"],
        "rubric_version": record["rubric_version"],
        "model": record.get("model") or "",
        "at": at,
        "status": status,
        "kappa": record.get("kappa"),
        "reason": reason,
        "data": json.loads(json.dumps(record, default=str)),
    }


def utc_day(moment: datetime) -> str:
    """``YYYY-MM-DD`` of ``moment`` in UTC (a naive time is taken as UTC, as the store does).

    >>> from datetime import timedelta, timezone
    >>> utc_day(datetime(2026, 11, 29, 23, 30, tzinfo=timezone(timedelta(hours=-5))))
    '2026-11-30'
    """
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return utc.date().isoformat()


def storable(rows: list[dict[str, Any]], dialect_name: str) -> list[dict[str, Any]]:
    """PostgreSQL cannot hold a NUL character in text or JSON, and agent output may
    contain one: there it becomes U+FFFD (the replacement character), so a stray byte
    in a transcript is kept visible instead of failing the whole batch.

    >>> storable([{"reason": "a\\x00b"}], "postgresql")
    [{'reason': 'a�b'}]
    """
    if dialect_name != "postgresql":
        return rows
    return [_without_nul(row) for row in rows]


def _without_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nul(item) for item in value]
    return value
