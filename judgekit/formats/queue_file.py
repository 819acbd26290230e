"""The team queue of a rubric, ``labels/<rubric_id>.queue.jsonl``: which labeller holds
which run now, so that several people labelling one rubric at once never get the same run
(unless it is one of the runs to label twice). Append-only JSON lines, each one of::

    {"queue": 1, "strategy": "random", "seed": 0, "double_code": 0.2, "hold_minutes": 30, "at": "..."}
    {"run_id": "r1", "labeler": "ana", "at": "...", "until": "..."}
    {"run_id": "r1", "labeler": "ana", "released": "skipped", "at": "..."}
    {"run_id": "r7", "queued": "review", "at": "..."}

The first line sets the queue (its order and its share of runs labelled twice) for every
labeller; a claim holds a run for its labeller until ``until`` (or until they label it); a
release gives it back. An entry puts a run in the queue (``judgekit judge --review``: sampled
for review, or abstained by a selective judge); once a queue holds entries it hands out only
the runs entered, and a queue without any hands out every run it is given. It lives beside the labels, so it can be committed with them. Its
last line is read as every append-only file's (:func:`judgekit._util.jsonl.append_only_lines`);
any other bad line is a :class:`judgekit.errors.DataError` naming the file, the line and the
field. The rules that hand out runs are in :mod:`judgekit.labelling.queue`.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgekit._util.file_locks import locked
from judgekit._util.input_paths import open_regular, read_error
from judgekit._util.jsonl import append_only_lines, parse_json, validation_error_to_data_error
from judgekit._util.locked_append import update_appended
from judgekit.errors import DataError

__all__ = [
    "QueueClaim",
    "QueueEntry",
    "QueueLine",
    "QueueLog",
    "QueueRelease",
    "QueueSettings",
    "queue_path",
    "read_queue_log",
    "read_queue_settings",
    "update_queue_file",
]

Strategy = Literal["random", "stratified", "disagreement", "uncertain", "abstained"]


class QueueSettings(BaseModel):
    """How the queue hands out runs: in which order, and which share of runs two
    labellers label (blind to each other), each run held for ``hold_minutes``."""

    model_config = ConfigDict(extra="forbid")

    queue: Literal[1]
    strategy: Strategy = "random"
    seed: int = 0
    double_code: float = Field(default=0.0, ge=0, le=1)
    hold_minutes: float = Field(default=30, gt=0, le=24 * 60)
    at: datetime


class QueueClaim(BaseModel):
    """A run held by one labeller until ``until``."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(min_length=1)
    labeler: str = Field(min_length=1)
    at: datetime
    until: datetime


class QueueRelease(BaseModel):
    """A run given back by its labeller (skipped, or the session ended)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(min_length=1)
    labeler: str = Field(min_length=1)
    released: str = Field(min_length=1)
    at: datetime


class QueueEntry(BaseModel):
    """A run put in the queue, and why: ``review`` (sampled for review) or ``abstained``."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(min_length=1)
    queued: Literal["review", "abstained"]
    at: datetime


QueueLine = QueueSettings | QueueClaim | QueueRelease | QueueEntry


@dataclass
class QueueLog:
    """What a queue file holds: its settings and each (run, labeller)'s latest line."""

    path: Path
    settings: QueueSettings | None = None
    latest: dict[tuple[str, str], QueueClaim | QueueRelease] = field(default_factory=dict)
    # The runs entered, each by its first entry; none: every run given is in the queue.
    entered: dict[str, QueueEntry] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def add(self, line: QueueLine) -> None:
        if isinstance(line, QueueSettings):
            if self.settings is None:  # the first settings line sets the queue for good
                self.settings = line
        elif isinstance(line, QueueEntry):
            self.entered.setdefault(line.run_id, line)
        else:
            self.latest[(line.run_id, line.labeler)] = line

    def holders(self, run_id: str, now: datetime) -> set[str]:
        """Who holds ``run_id`` at ``now``."""
        return {
            labeler
            for (run, labeler), line in self.latest.items()
            if run == run_id and isinstance(line, QueueClaim) and line.until > now
        }

    def held_by(self, labeler: str, now: datetime) -> list[str]:
        """The runs ``labeler`` holds at ``now``, oldest claim first."""
        held = [
            line
            for (_, who), line in self.latest.items()
            if who == labeler and isinstance(line, QueueClaim) and line.until > now
        ]
        return [line.run_id for line in sorted(held, key=lambda line: line.at)]


def queue_path(labels_file: str | Path) -> Path:
    """The queue file beside a labels file: same folder, same stem, ``.queue.jsonl``.

    >>> queue_path("labels/goal_completion.jsonl").as_posix()
    'labels/goal_completion.queue.jsonl'
    """
    labels = Path(labels_file)
    return labels.with_name(f"{labels.stem}.queue.jsonl")


def read_queue_settings(labels_file: str | Path) -> QueueSettings | None:
    """The settings of the queue beside ``labels_file``, None when it has none yet."""
    return read_queue_log(labels_file).settings


def read_queue_log(labels_file: str | Path) -> QueueLog:
    """The queue beside ``labels_file`` as it is now (empty when it has no file yet)."""
    path = queue_path(labels_file)
    try:
        with open_regular(path) as fh, locked(fh.fileno(), exclusive=False):
            data = fh.read()  # never half of a line a labeller is appending
    except FileNotFoundError:
        return QueueLog(path=path)
    except OSError as exc:
        raise read_error(exc, path) from None
    return _parse(path, data)


def update_queue_file(path: Path, decide: Callable[[QueueLog], Sequence[QueueLine]]) -> QueueLog:
    """Read the queue and append the lines ``decide`` makes of it, under one exclusive lock
    (two labellers never claim one run at once), durable on return."""
    return update_appended(
        path, parse=lambda data: _parse(path, data), decide=decide, add=QueueLog.add
    )


def _parse(path: Path, data: bytes) -> QueueLog:
    log = QueueLog(path=path)
    for number, raw in append_only_lines(io.BytesIO(data), path, warn=log.warnings.append):
        line = _parse_line(raw, path, number)
        if number == 1 and not isinstance(line, QueueSettings):
            raise DataError(
                'the first line sets the queue: {"queue": 1, "strategy": ..., "seed": '
                '..., "double_code": ..., "at": ...}',
                path=path,
                line=number,
            )
        log.add(line)
    return log


def _parse_line(raw: bytes, path: Path, number: int) -> QueueLine:
    try:
        value: Any = parse_json(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8 text"
        raise DataError(f"malformed JSON: {reason}", path=path, line=number) from None
    if not isinstance(value, dict):
        raise DataError(
            "expected a JSON object: the queue's settings, a claim (run_id, labeler, at, "
            "until), a release (run_id, labeler, released, at) or an entry (run_id, queued, "
            "at)",
            path=path,
            line=number,
        )
    model: type[QueueLine]
    if "queue" in value:
        model = QueueSettings
    elif "released" in value:
        model = QueueRelease
    elif "queued" in value:
        model = QueueEntry
    else:
        model = QueueClaim
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise validation_error_to_data_error(exc, path=path, line=number) from None
