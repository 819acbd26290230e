"""Settling labellers' disagreements: the runs whose labellers gave different labels, and the
label a settler records for one of them — a line of the same labels file, marked with the
labellers it settles (:attr:`judgekit.formats.label.Label.settles`).

No judge verdict is shown or read here: settling is between people.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from judgekit.calibration.labellers import natural_key
from judgekit.errors import ConfigError
from judgekit.formats.label import Label, LabelLog
from judgekit.formats.rubric import Rubric
from judgekit.labelling.keys import scale_keys
from judgekit.labelling.labels_file import LabelWriter
from judgekit.view.data import ViewData

__all__ = ["Unsettled", "own_labels_differ", "settle", "unsettled"]


@dataclass(frozen=True)
class Unsettled:
    """A run whose labellers' own labels differ, with them, and its settled label if any."""

    run_id: str
    labels: list[Label]
    settled: Label | None


def own_labels_differ(labels: Iterable[Label]) -> bool:
    """The labellers' own labels (settling ones aside) are not all the same."""
    return len({repr(label.label) for label in labels if not label.settles}) > 1


def unsettled(log: LabelLog | None, *, include_settled: bool = False) -> list[Unsettled]:
    """The runs whose labellers disagree, in natural order of run id (those already
    settled too, with ``include_settled``)."""
    if log is None:
        return []
    own: dict[str, list[Label]] = {}
    settled: dict[str, Label] = {}
    for (run_id, _), label in log.current.items():
        if label.settles:
            if run_id not in settled or label.at >= settled[run_id].at:
                settled[run_id] = label
        else:
            own.setdefault(run_id, []).append(label)
    found = [
        Unsettled(run, sorted(labels, key=lambda label: label.labeler), settled.get(run))
        for run, labels in own.items()
        if own_labels_differ(labels) and (include_settled or run not in settled)
    ]
    return sorted(found, key=lambda item: natural_key(item.run_id))


def settle(data: ViewData, rubric: Rubric, run_id: str, key: str, settler: str) -> Label:
    """Append ``settler``'s settled label of ``run_id`` (the score ``key`` names), durable
    on return; a run with no disagreement, an unknown key or an empty name is refused."""
    settler = settler.strip()
    if not settler or len(settler) > 100:
        raise ConfigError("a settler's name is 1 to 100 characters")
    view_run = data.runs.get(run_id)
    found = [
        item
        for item in unsettled(data.labels(rubric), include_settled=True)
        if item.run_id == run_id
    ]
    if view_run is None or not found:
        raise ConfigError(f"run {run_id!r} has no disagreement between labellers to settle")
    score = scale_keys(rubric).score_for(key)
    if score is None:
        raise ConfigError(f"{key!r} is not a label of {rubric.id}: {scale_keys(rubric).legend()}")
    label = Label(
        run_id=run_id,
        rubric_id=rubric.id,
        label=score,
        labeler=settler,
        at=datetime.now(UTC),
        item_hash=view_run.item.hash,
        revealed=False,
        settles=sorted({label.labeler for label in found[0].labels}),
    )
    with LabelWriter(data.labels_file(rubric)) as writer:
        writer.append(label)
    return label
