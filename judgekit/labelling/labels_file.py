"""The hand-label store: ``labels/<rubric_id>.jsonl``, one append-only line per label.

A later line for the same (run, rubric, labeler) supersedes an earlier one, so undo and
relabelling append and never rewrite. Each line is flushed and fsynced before the
labelling prompt shows the next run: a crash loses at most the label being typed.

Reading is strict where a person's work is at stake and lenient where a crash is the
likely cause:

- a last line cut short (no newline, not valid JSON) is what a crash mid-write leaves; it
  is ignored with a warning, and the next append first cuts it off;
- any other line that is not JSON, not a label, or whose label is not on the rubric's
  scale raises :class:`judgekit.errors.DataError` naming the file and the line.

::

    log = read_labels("labels/goal_completion.jsonl", rubric)
    for (run_id, labeler), label in log.current.items():
        ...
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judgekit._util.jsonl import parse_json, validation_error_to_data_error
from judgekit.errors import DataError, OutputError
from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric, normalise_score, scale_values

__all__ = ["LabelLog", "LabelWriter", "item_hash", "labels_path", "read_labels"]


def labels_path(labels_dir: str | Path, rubric_id: str) -> Path:
    """Where a rubric's labels live: ``<labels_dir>/<rubric_id>.jsonl``."""
    return Path(labels_dir) / f"{rubric_id}.jsonl"


def item_hash(text: str) -> str:
    """The sha256 (hex) of the exact text a labeller saw, as UTF-8.

    >>> item_hash("Final answer: done")[:12]
    '09fb84bd0c01'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class LabelLog:
    """The labels of one rubric file: every line in order, and the current label of each
    (run, labeler) once superseded lines are dropped."""

    path: Path
    lines: list[Label] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def current(self) -> dict[tuple[str, str], Label]:
        """``(run_id, labeler) -> label``: the last line for each pair wins."""
        latest: dict[tuple[str, str], Label] = {}
        for label in self.lines:
            latest[(label.run_id, label.labeler)] = label
        return latest

    def by_labeler(self, labeler: str) -> dict[str, Label]:
        """``run_id -> label`` of one labeller's current labels."""
        return {run: lab for (run, who), lab in self.current.items() if who == labeler}


def read_labels(path: str | Path, rubric: Rubric) -> LabelLog:
    """The labels in ``path`` for ``rubric`` (an empty log when the file does not exist).

    Labels are normalised to the scale's spelling (``true`` reads as ``"pass"``).
    """
    file = Path(path)
    log = LabelLog(path=file)
    try:
        with file.open("rb") as fh, _locked(fh.fileno(), fcntl.LOCK_SH):
            data = fh.read()  # never half of a label another labeller is appending
    except FileNotFoundError:
        return log
    except IsADirectoryError:
        raise DataError("is a folder, expected a file", path=file) from None
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", path=file) from None
    raw_lines = data.split(b"\n")
    # data ending with "\n" leaves an empty last element; otherwise the last one is unfinished.
    unfinished = raw_lines[-1] if raw_lines[-1] else None
    complete = raw_lines[:-1]
    for number, raw in enumerate(complete, start=1):
        if raw.strip():
            log.lines.append(_parse_line(raw, file, number, rubric))
    if unfinished is not None and unfinished.strip():
        number = len(complete) + 1
        if _is_json(unfinished):
            # A whole line without its newline (another tool wrote it): read it as usual.
            log.lines.append(_parse_line(unfinished, file, number, rubric))
        else:
            log.warnings.append(
                f"{file}:{number}: ignored a truncated last line (left by a crash while writing?)"
            )
    return log


def _is_json(raw: bytes) -> bool:
    try:
        parse_json(raw)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError are both ValueErrors
        return False
    return True


def _parse_line(raw: bytes, path: Path, number: int, rubric: Rubric) -> Label:
    try:
        value: Any = parse_json(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8 text"
        raise DataError(f"malformed JSON: {reason}", path=path, line=number) from None
    try:
        label = Label.model_validate(value)
    except ValidationError as exc:
        raise validation_error_to_data_error(exc, path=path, line=number) from None
    if label.rubric_id != rubric.id:
        raise DataError(
            f"a label for rubric {label.rubric_id!r} in the file of rubric {rubric.id!r}",
            path=path,
            line=number,
            field="rubric_id",
        )
    try:
        label.label = normalise_score(rubric.scale, label.label)
    except ValueError:
        valid = ", ".join(json.dumps(v) for v in scale_values(rubric.scale))
        raise DataError(
            f"unknown label {json.dumps(label.label)} for the {rubric.kind} scale of "
            f"{rubric.id}; valid labels are {valid}",
            path=path,
            line=number,
            field="label",
        ) from None
    return label


class LabelWriter:
    """Appends labels to one file, each line durable (flushed and fsynced) on return.

    Several labellers may label the same rubric at once: each append holds an exclusive
    ``flock`` on the file for the few milliseconds of its write, so lines never interleave.
    Under that lock, a truncated last line left by a crash is first cut off, so the new
    line never fuses with it::

        with LabelWriter("labels/goal_completion.jsonl") as writer:
            writer.append(label)
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("ab")
        except OSError as exc:
            raise OutputError(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def _cut_unfinished_line(self) -> None:
        start, last = _last_line(self.path)
        if not last:
            return
        if _is_json(last):
            # A whole label without a final newline (written by another tool): keep it.
            self._fh.write(b"\n")
        else:
            # A fragment from a crash: drop it (the reader already warned about it).
            os.truncate(self.path, start)

    def append(self, label: Label) -> None:
        """Write ``label`` as one line and make it durable before returning."""
        self.append_many([label])

    def append_many(self, labels: Iterable[Label]) -> None:
        """Write ``labels``, one line each, as one durable append."""
        data = b"".join(
            (label.model_dump_json(exclude_none=True) + "\n").encode("utf-8") for label in labels
        )
        try:
            with _locked(self._fh.fileno(), fcntl.LOCK_EX):
                self._cut_unfinished_line()
                self._fh.write(data)
                self._fh.flush()
                os.fsync(self._fh.fileno())
        except OSError as exc:
            raise OutputError(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> LabelWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@contextmanager
def _locked(fd: int, operation: int) -> Iterator[None]:
    """Hold a ``flock`` on ``fd`` (shared or exclusive), waiting for it."""
    fcntl.flock(fd, operation)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _last_line(path: Path) -> tuple[int, bytes]:
    """Where the file's unfinished last line starts, and its bytes (empty when the file
    ends with a newline); read from the end, so a long file costs no more than a short one."""
    with path.open("rb") as fh:
        end = fh.seek(0, os.SEEK_END)
        position, tail = end, b""
        while position > 0:
            step = min(_TAIL_CHUNK, position)
            position -= step
            fh.seek(position)
            tail = fh.read(step) + tail
            newline = tail.rfind(b"\n")
            if newline >= 0:
                return position + newline + 1, tail[newline + 1 :]
        return 0, tail


_TAIL_CHUNK = 4096
