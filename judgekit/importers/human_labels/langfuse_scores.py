"""Human labels from Langfuse: its scores, as the public API returns them
(``GET /api/public/scores``, the langfuse SDK's ``api.scores`` models dumped with
``.json()`` or ``model_dump(mode="json")``), one per line or in a JSON list or page.

A score is a person's when its ``source`` is ``ANNOTATION`` (``API`` and ``EVAL`` are code
and LLM-as-a-judge). The value is a ``CATEGORICAL`` score's ``stringValue`` (or, when
absent, the label its score config gives its ``value``), a ``BOOLEAN`` one's ``true`` or
``false``, a ``NUMERIC`` one's number. The same files may hold the project's score configs
(``categories``: label → value), which check and name categorical values, and
annotation-queue items (``objectId``, ``status``): a score given in a queue counts once its
item is ``COMPLETED``. A score of a trace labels the run of that trace (the run importer's
id is the trace id); a score of a session, the run of a session grouped with
``--group-by session``; a score of an observation labels one step, not the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgekit.importers.human_labels.records import (
    PlatformLabel,
    Target,
    aliased,
    label_time,
    value_text,
)
from judgekit.importers.locations import Location, describe_json, optional_string, required_string
from judgekit.importers.trace_records import Record, iter_records

__all__ = ["read_langfuse_scores"]

_WHAT = "a Langfuse score, annotation-queue item or score config"
_SOURCES = ("ANNOTATION", "API", "EVAL")
_TYPES = ("NUMERIC", "CATEGORICAL", "BOOLEAN", "CORRECTION", "TEXT")


@dataclass
class _Export:
    scores: list[Record] = field(default_factory=list)
    categories: dict[str, dict[str, str]] = field(default_factory=dict)  # config → value → label
    queue_status: dict[tuple[str, str], str] = field(default_factory=dict)  # (queue, object)


def read_langfuse_scores(paths: Sequence[Path]) -> list[PlatformLabel]:
    """The scores of ``paths`` as labels, with the configs and queue items they hold."""
    export = _Export()
    for path in paths:
        for record in iter_records(path, ("data",), _WHAT):
            _sort(record, export)
    return [_label(record, export) for record in export.scores]


def _sort(record: Record, export: _Export) -> None:
    data, where = record.data, record.where
    if aliased(data, "objectId", "object_id") is not None:
        queue = required_string(data, "queueId" if "queueId" in data else "queue_id", where)
        obj = required_string(data, "objectId" if "objectId" in data else "object_id", where)
        export.queue_status[(queue, obj)] = required_string(data, "status", where)
    elif "source" in data:
        export.scores.append(record)
    elif "categories" in data or aliased(data, "isArchived", "is_archived") is not None:
        config = required_string(data, "id", where)
        export.categories[config] = _categories(data.get("categories"), where.key("categories"))
    else:
        raise where.error(f"expected {_WHAT} (with `source`, `objectId` or `categories`)")


def _categories(value: Any, where: Location) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, list):
        raise where.error(f"expected a list of categories, got {describe_json(value)}")
    found: dict[str, str] = {}
    for index, item in enumerate(value):
        spot = where.item(index)
        if not isinstance(item, dict):
            raise spot.error(f'expected {{"label": ..., "value": ...}}, got {describe_json(item)}')
        found[value_text(item.get("value"), spot.key("value"))] = required_string(
            item, "label", spot
        )
    return found


def _label(record: Record, export: _Export) -> PlatformLabel:
    data, where = record.data, record.where
    source = required_string(data, "source", where)
    if source not in _SOURCES:
        raise where.key("source").error(
            f"unknown score source {source!r}; expected one of " + ", ".join(_SOURCES)
        )
    author = optional_string(
        data, "authorUserId" if "authorUserId" in data else "author_user_id", where
    )
    targets, left_out = _targets(data, where)
    queue = aliased(data, "queueId", "queue_id")
    if left_out is None and isinstance(queue, str):
        status = next(
            (
                export.queue_status[(queue, obj)]
                for _, obj in targets
                if (queue, obj) in export.queue_status
            ),
            None,
        )
        if status is not None and status != "COMPLETED":
            left_out = f"its annotation-queue item is {status}, not COMPLETED"
    value, where_value, no_value = _value(data, where, export)
    return PlatformLabel(
        where=where_value,
        name=required_string(data, "name", where),
        value=value,
        targets=targets,
        labeller=f"langfuse:{author}" if author else None,
        at=label_time(
            aliased(data, "updatedAt", "updated_at", "timestamp"), where.key("timestamp")
        ),
        note=optional_string(data, "comment", where),
        human=source == "ANNOTATION",
        left_out=left_out or no_value,
    )


def _targets(data: dict[str, Any], where: Location) -> tuple[tuple[Target, ...], str | None]:
    ids: dict[str, str | None] = {}
    for key, camel, snake in (
        ("trace", "traceId", "trace_id"),
        ("session", "sessionId", "session_id"),
        ("observation", "observationId", "observation_id"),
        ("dataset run", "datasetRunId", "dataset_run_id"),
    ):
        ids[key] = optional_string(data, camel if camel in data else snake, where)
    if ids["observation"] is not None:
        return (), "a score of an observation: one step of a trace, not the whole trace"
    targets: list[Target] = []
    if ids["trace"] is not None:
        targets.append(("trace", ids["trace"]))
    if ids["session"] is not None:
        targets.append(("session", ids["session"]))
    if not targets:
        return (), "a score of no trace or session (of a dataset run, or of nothing)"
    return tuple(targets), None


def _value(
    data: dict[str, Any], where: Location, export: _Export
) -> tuple[str, Location, str | None]:
    """The score's value text, where it was read from, and why it has none to map."""
    # A score dumped from a class of one data type has no dataType: its stringValue tells.
    kind = aliased(data, "dataType", "data_type") or (
        "CATEGORICAL" if aliased(data, "stringValue", "string_value") is not None else "NUMERIC"
    )
    if kind not in _TYPES:
        raise where.key("dataType").error(
            f"unknown data type {describe_json(kind)}; expected one of " + ", ".join(_TYPES)
        )
    if kind in ("CORRECTION", "TEXT"):
        return "", where.key("value"), f"a {kind} score: free text, no value to map"
    if kind != "CATEGORICAL":
        number = value_text(data.get("value"), where.key("value"))
    if kind == "BOOLEAN":
        if number not in ("0", "1"):
            raise where.key("value").error(f"a BOOLEAN score is 0 or 1, got {number}")
        return ("true" if number == "1" else "false"), where.key("value"), None
    if kind == "NUMERIC":
        return number, where.key("value"), None
    key = "stringValue" if "stringValue" in data else "string_value"
    label = optional_string(data, key, where)
    config = aliased(data, "configId", "config_id")
    categories = export.categories.get(config) if isinstance(config, str) else None
    if categories is not None:
        known = ", ".join(categories.values())
        number = value_text(data.get("value"), where.key("value")) if label is None else ""
        if label is None and number not in categories:
            raise where.key("value").error(
                f"value {number} is not a category of score config {config!r} ({known})"
            )
        if label is not None and label not in categories.values():
            raise where.key(key).error(
                f"{label!r} is not a category of score config {config!r} ({known})"
            )
        label = label or categories[number]
    if label is None:
        raise where.key(key).error(
            "required field is missing (a CATEGORICAL score's label; or give its score config)"
        )
    return value_text(label, where.key(key)), where.key(key), None
