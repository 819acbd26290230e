"""A rubric's status: *promoted* when a promotion record matches its current version.

The record (``rubrics/<id>.promotion.json``, written by calibration) binds the calibration
figures to one rubric version and judge model. Any edit that changes the version, or a
record that did not pass, leaves the rubric a *draft*: its scores are informational and
never gate or alert.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from judgekit.formats.rubric import Rubric
from judgekit.judging.rubrics import rubric_version

RubricStatus = Literal["promoted", "draft", "stale"]


def promotion_record_path(rubric: Rubric, rubrics_dir: Path) -> Path:
    return rubrics_dir / f"{rubric.id}.promotion.json"


def rubric_status(rubric: Rubric, rubrics_dir: Path) -> tuple[RubricStatus, str]:
    """The status and why: promoted, draft (no passing record) or stale (a record for
    another version: the rubric or its judge changed since it was calibrated)."""
    path = promotion_record_path(rubric, rubrics_dir)
    if not path.exists():
        return "draft", "not calibrated yet"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return "draft", f"unreadable promotion record {path}: {exc}"
    version = rubric_version(rubric)
    if record.get("rubric_version") != version:
        return "stale", f"promoted at version {record.get('rubric_version')}, now {version}"
    if not record.get("promotable", False):
        return "draft", "the last calibration did not clear the promotion bar"
    return "promoted", f"calibrated on {record.get('n', '?')} labels"
