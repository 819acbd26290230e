"""A rubric's status: *promoted* when a promotion record matches its current version.

The record (``rubrics/<id>.promotion.json``, written by ``judgekit promote``) binds the
calibration figures to one rubric version and judge model. Without a passing record for
the current version the rubric's scores are informational and never gate or alert; it is
*stale* when a record exists for another version (edited since it was promoted) or a
recheck found its judge drifted from the labels (``judgekit monitor --recheck``),
*calibrating* when hand labels exist (``labels/<id>.jsonl`` beside ``rubrics/``) but no
passing record, and a *draft* otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from judgekit._util.input_paths import is_file, os_reason
from judgekit._util.jsonl import parse_json
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import rubric_version

RubricStatus = Literal["promoted", "calibrating", "draft", "stale"]


def promotion_record_path(rubric: Rubric, rubrics_dir: Path) -> Path:
    return rubrics_dir / f"{rubric.id}.promotion.json"


def default_labels_dir(rubrics_dir: Path) -> Path:
    """Where hand labels live by default: ``labels/`` beside ``rubrics/``."""
    return rubrics_dir.parent / "labels"


def rubric_status(
    rubric: Rubric, rubrics_dir: Path, *, labels_dir: Path | None = None
) -> tuple[RubricStatus, str]:
    """The status and why: promoted, stale (a record for another version: the rubric or
    its judge changed since it was calibrated), calibrating (labels but no passing record)
    or draft (neither)."""
    path = promotion_record_path(rubric, rubrics_dir)
    labels = (labels_dir or default_labels_dir(rubrics_dir)) / f"{rubric.id}.jsonl"
    labelled = is_file(labels)
    try:
        record = parse_json(path.read_bytes())
    except FileNotFoundError:
        if labelled:
            return "calibrating", f"hand labels in {labels}, not promoted yet"
        return "draft", "not calibrated yet"
    except OSError as exc:
        return "draft", f"unreadable promotion record {path}: {os_reason(exc)}"
    except ValueError as exc:  # malformed JSON, or not UTF-8
        return "draft", f"unreadable promotion record {path}: {exc}"
    if not isinstance(record, dict):
        return "draft", f"unreadable promotion record {path}: not a JSON object"
    version = rubric_version(rubric)
    stale = record.get("stale")
    if isinstance(stale, dict) and record.get("rubric_version") == version:
        return "stale", str(stale.get("reason") or "a recheck found the judge drifted")
    if record.get("rubric_version") != version:
        return "stale", f"promoted at version {record.get('rubric_version')}, now {version}"
    if not record.get("promotable", False):
        why = "the last calibration did not clear the promotion bar"
        return ("calibrating" if labelled else "draft"), why
    return "promoted", f"calibrated on {record.get('n', '?')} labels"


def judged_model(rubric: Rubric, status: RubricStatus, rubrics_dir: Path) -> str:
    """The judge model whose verdicts count: the promotion record's while promoted, else
    the rubric's own."""
    if status == "promoted":
        record = json.loads(promotion_record_path(rubric, rubrics_dir).read_text("utf-8"))
        return str(record.get("model") or rubric.judge.model)
    return rubric.judge.model
