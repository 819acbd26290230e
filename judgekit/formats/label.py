"""The hand-label file, ``labels/<rubric_id>.jsonl``: one append-only line per label, and
its one reader.

A later line for the same (run, rubric, labeler) supersedes an earlier one, so undo and
relabelling append and never rewrite (the writer is
:class:`judgekit.labelling.LabelWriter`). Its last line is read
as every append-only file's (:func:`judgekit._util.jsonl.append_only_lines`): one cut short
by a crash (no newline, not valid JSON) is ignored with a warning, and the next append first
cuts it off; any other line that is not JSON, not a label, or whose label is not on the
rubric's scale raises :class:`judgekit.errors.DataError` naming the file and the line.

A label records the hash of the text the labeller saw (:func:`item_text`,
:func:`item_hash`): when a run's text changes later, its labels are stale.

::

    log = read_labels("labels/goal_completion.jsonl", rubric)
    for (run_id, labeler), label in log.current.items():
        ...
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgekit._util.file_locks import locked
from judgekit._util.input_paths import open_regular, read_error
from judgekit._util.jsonl import (
    append_only_lines,
    is_json_line,
    parse_json,
    validation_error_to_data_error,
)
from judgekit.errors import DataError
from judgekit.formats.conversation import is_conversation, render_conversation
from judgekit.formats.rubric import Rubric, normalise_score, scale_values
from judgekit.formats.run import Run
from judgekit.formats.runs_input import iter_given_runs
from judgekit.formats.task_files import load_task_files
from judgekit.formats.transcript import render_transcript

__all__ = [
    "NO_INPUT",
    "Label",
    "LabelLog",
    "is_json_line",
    "item_hash",
    "item_hashes",
    "item_text",
    "labels_path",
    "locked",
    "read_labels",
    "runs_with_inputs",
]

NO_INPUT = "(no input was recorded)"
SETTLED = " (settled)"  # how a settling label's labeller is keyed among the current labels


class Label(BaseModel):
    """A person's verdict on one run under one rubric.

    A later line for the same (run, rubric, labeler) supersedes an earlier one.
    """

    model_config = ConfigDict(extra="forbid")

    run_id: str
    rubric_id: str
    label: Any = Field(
        description="pass/fail, 1..5, a choice, or A/B/tie, as the rubric's scale says"
    )
    labeler: str
    at: datetime
    note: str | None = None
    item_hash: str | None = Field(
        default=None,
        description="sha256 of the text the labeler saw (an imported label's: of the run's "
        "text as the labeller shows it)",
    )
    revealed: bool | None = Field(
        default=None,
        description="Whether the judge's verdict was shown right after the label (--reveal); "
        "absent for imported labels",
    )
    settles: list[str] | None = Field(
        default=None,
        description="The labellers whose different labels of the run this label settles: it "
        "then stands for the run, whatever the labellers' majority (a test run counts with "
        "the labels it was assigned with)",
    )


def item_text(run: Run, task_input: str | None = None) -> str:
    """The run as the labeller reads it: the task, the tool calls with their (folded)
    arguments and results, the final answer, and the run's own reference answer if it has one;
    a conversation of several exchanges (``Run.messages``) as every turn in order instead.

    >>> from judgekit.formats.run import ToolCall
    >>> print(item_text(Run(run_id="r", task_id="t", input="Refund A100.", final_answer="Done.",
    ...                     tool_calls=[ToolCall(name="refund", args={"id": "A100"}, result=True)])))
    Task: Refund A100.
    <BLANKLINE>
    Tool call 1: refund(id="A100")
    Result: true
    Final answer: Done.
    """
    if is_conversation(run):  # every turn, so a "Yes" is read with the question before it
        text = f"Conversation:\n\n{render_conversation(run)}"
    else:
        task = run.input if run.input is not None else task_input
        text = f"Task: {task if task is not None else NO_INPUT}\n\n{render_transcript(run)}"
    if run.reference is not None:  # what the run's own answer is graded against
        text += f"\n\nReference answer: {run.reference}"
    answers = run.metadata.get("answers")
    if isinstance(answers, list) and len(answers) == 2:
        # A pairwise run: the labeller compares the two answers, as the judge does.
        text += f"\n\nAnswer A:\n{answers[0]}\n\nAnswer B:\n{answers[1]}"
    return text


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
        """``(run_id, labeler) -> label``: the last line for each pair wins. A label that
        settles a disagreement is keyed ``"<labeler> (settled)"``, so it never replaces its
        settler's own label of the run (which labeller agreement is measured on)."""
        latest: dict[tuple[str, str], Label] = {}
        for label in self.lines:
            who = f"{label.labeler}{SETTLED}" if label.settles else label.labeler
            latest[(label.run_id, who)] = label
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
        with open_regular(file) as fh, locked(fh.fileno(), exclusive=False):
            data = fh.read()  # never half of a label another labeller is appending
    except FileNotFoundError:
        return log
    except OSError as exc:
        raise read_error(exc, file) from None
    for number, raw in append_only_lines(io.BytesIO(data), file, warn=log.warnings.append):
        log.lines.append(_parse_line(raw, file, number, rubric))
    return log


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


def item_hashes(runs_files: Sequence[Path], tasks_path: Path | None) -> dict[str, str] | None:
    """Run id → hash of the text a labeller would see now, to tell stale labels; None
    when no runs are given (staleness then goes unchecked). A malformed runs file, or a run
    id seen twice in one, is a :class:`judgekit.errors.DataError`."""
    if not runs_files:
        return None
    return {
        run.run_id: item_hash(item_text(run, task_input))
        for run, task_input in runs_with_inputs(runs_files, tasks_path)
    }


def runs_with_inputs(
    runs_files: Sequence[Path], tasks_path: Path | None
) -> Iterator[tuple[Run, str | None]]:
    """Each run of ``runs_files`` with its task's input from the suites of ``tasks_path``
    (None without them, or when the task gives none)."""
    # A task's input is all the text needs: the suite is read as data, importing nothing.
    tasks = load_task_files(tasks_path, resolve_code=False) if tasks_path is not None else None
    for runs in runs_files:
        for _, run in iter_given_runs(runs):
            task = tasks.get(run.task_id) if tasks is not None else None
            yield run, task.input if task is not None else None
