"""The split file, ``labels/<rubric_id>.split.jsonl``: which labelled runs are *dev* (read,
tuned on) and which are *test* (held out for ``judgekit promote``), and which test labels
were spent. Append-only JSON lines, each one of::

    {"run_id": "r1", "side": "test", "label": "pass", "labels": {"ana": "pass"},
     "test_share": 0.5, "at": "2026-05-01T10:00:00Z"}
    {"run_id": "r1", "spent": "shown as a disagreement by calibrate --split test", "at": "..."}

The first assignment of a run wins forever (a run never changes side), as does the first
spent mark. An assignment keeps the labels the run had when it was assigned (``label``, their
majority, None on a tie; ``labels``, each labeller's) and the policy's ``test_share`` then:
what promotion counts, and what lets the file be replayed against the rule that wrote it. Its last line is read as every append-only file's
(:func:`judgekit._util.jsonl.append_only_lines`): one cut short by a crash is ignored with a
warning and cut off by the next append; any other bad line is a
:class:`judgekit.errors.DataError` naming the file, the line and the field. The rules that assign runs are in :mod:`judgekit.calibration.split`.
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
from judgekit._util.jsonl import (
    append_only_lines,
    parse_json,
    validation_error_to_data_error,
)
from judgekit._util.locked_append import update_appended
from judgekit.errors import DataError

__all__ = [
    "Side",
    "SpentMark",
    "SplitAssignment",
    "SplitLog",
    "read_split_file",
    "split_path",
    "update_split_file",
]

Side = Literal["dev", "test"]


class SplitAssignment(BaseModel):
    """A labelled run put on one side, with the labels it had then: their majority
    (``label``, None when the labellers tied) and, since judgekit kept them, each
    labeller's (``labels``), and the test share it was assigned under."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(min_length=1)
    side: Side
    label: Any = None
    labels: dict[str, Any] | None = None
    test_share: float | None = Field(default=None, ge=0, le=1)
    at: datetime


class SpentMark(BaseModel):
    """A test label that no longer counts for promotion, and why (it was seen)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(min_length=1)
    spent: str = Field(min_length=1)
    at: datetime


SplitLine = SplitAssignment | SpentMark


@dataclass
class SplitLog:
    """What a split file holds: each run's first assignment (in file order, with its line
    number when read from the file) and first spent mark."""

    path: Path
    assignments: dict[str, SplitAssignment] = field(default_factory=dict)
    spent: dict[str, str] = field(default_factory=dict)  # run id → why
    warnings: list[str] = field(default_factory=list)
    line_numbers: dict[str, int] = field(default_factory=dict)  # run id → its assignment's line

    def add(self, line: SplitLine) -> None:
        """Take ``line`` in, unless an earlier line of its run already decided (first wins)."""
        if isinstance(line, SplitAssignment):
            self.assignments.setdefault(line.run_id, line)
        else:
            self.spent.setdefault(line.run_id, line.spent)


def split_path(labels_file: str | Path) -> Path:
    """The split file beside a labels file: same folder, same stem, ``.split.jsonl``.

    >>> split_path("labels/goal_completion.jsonl").as_posix()
    'labels/goal_completion.split.jsonl'
    """
    labels = Path(labels_file)
    return labels.with_name(f"{labels.stem}.split.jsonl")


def read_split_file(path: str | Path) -> SplitLog:
    """The split recorded in ``path`` (an empty log when the file does not exist)."""
    file = Path(path)
    try:
        with open_regular(file) as fh, locked(fh.fileno(), exclusive=False):
            data = fh.read()  # never half of a line another process is appending
    except FileNotFoundError:
        return SplitLog(path=file)
    except OSError as exc:
        raise read_error(exc, file) from None
    return _parse(file, data)


def update_split_file(
    path: str | Path, decide: Callable[[SplitLog], Sequence[SplitLine]]
) -> SplitLog:
    """Read the split file and append the lines ``decide`` (a pure function) makes of it, all under one
    exclusive lock (two processes never assign one run twice), durable (flushed and
    fsynced) on return; the log returned includes them. Nothing is written, and the file
    is not created, when ``decide`` makes no line."""
    file = Path(path)
    return update_appended(
        file, parse=lambda data: _parse(file, data), decide=decide, add=SplitLog.add
    )


def _parse(file: Path, data: bytes) -> SplitLog:
    log = SplitLog(path=file)
    for number, raw in append_only_lines(io.BytesIO(data), file, warn=log.warnings.append):
        _add_numbered(log, _parse_line(raw, file, number), number)
    return log


def _add_numbered(log: SplitLog, line: SplitLine, number: int) -> None:
    if isinstance(line, SplitAssignment):
        log.line_numbers.setdefault(line.run_id, number)
    log.add(line)


def _parse_line(raw: bytes, path: Path, number: int) -> SplitLine:
    try:
        value: Any = parse_json(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8 text"
        raise DataError(f"malformed JSON: {reason}", path=path, line=number) from None
    if not isinstance(value, dict):
        raise DataError(
            "expected a JSON object: an assignment (run_id, side, label, at) or a spent "
            "mark (run_id, spent, at)",
            path=path,
            line=number,
        )
    if "side" in value and "spent" in value:
        raise DataError(
            "a line either assigns a side or marks a test label spent, not both",
            path=path,
            line=number,
            field="spent",
        )
    if "side" not in value and "spent" not in value:
        raise DataError(
            "required field is missing: a line assigns a side (dev or test) or marks a "
            "test label spent (spent: why)",
            path=path,
            line=number,
            field="side",
        )
    model: type[SplitLine] = SplitAssignment if "side" in value else SpentMark
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise validation_error_to_data_error(exc, path=path, line=number) from None
