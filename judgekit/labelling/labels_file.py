"""The hand-label writer: appends to ``labels/<rubric_id>.jsonl``, one line per label.

Each line is flushed and fsynced before the labelling prompt shows the next run: a crash
loses at most the label being typed. The file's format and its reader are in
:mod:`judgekit.formats.label`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from judgekit._util.jsonl import end_torn_tail
from judgekit.errors import OutputError
from judgekit.formats.label import Label, locked

__all__ = ["LabelWriter"]


class LabelWriter:
    """Appends labels to one file, each line durable (flushed and fsynced) on return.

    Several labellers may label the same rubric at once: each append holds an exclusive
    ``flock`` on the file for the few milliseconds of its write, so lines never interleave.
    Under that lock, a truncated last line left by a crash is first cut off, and a whole
    one without its newline ended, so the new line never fuses with it::

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

    def append(self, label: Label) -> None:
        """Write ``label`` as one line and make it durable before returning."""
        self.append_many([label])

    def append_many(self, labels: Iterable[Label]) -> None:
        """Write ``labels``, one line each, as one durable append."""
        data = b"".join(
            (label.model_dump_json(exclude_none=True) + "\n").encode("utf-8") for label in labels
        )
        try:
            with locked(self._fh.fileno(), exclusive=True):
                end_torn_tail(self.path, self._fh)
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
