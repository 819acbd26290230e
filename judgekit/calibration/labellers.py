"""The people behind the labels: each labeller's agreement with the judge, the labels made
on a text that has changed since (*stale*, to relabel), and the runs where the humans'
majority and the judge disagree."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judgekit.calibration.join import Pairs
from judgekit.formats.label import Label
from judgekit.formats.rubric import Score

__all__ = [
    "Disagreement",
    "LabelerFigures",
    "StaleLabel",
    "disagreements",
    "natural_key",
    "per_labeler",
    "stale_labels",
]


@dataclass(frozen=True)
class Disagreement:
    """A run where the judge and the humans' majority label differ."""

    run_id: str
    human: Score
    judge: Score
    reason: str | None
    notes: dict[str, str]  # labeller -> note

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "human": self.human,
            "judge": self.judge,
            "reason": self.reason,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class LabelerFigures:
    """One labeller: current labels, how many of their runs were compared, and how often
    their label matched the judge there (None when none was compared)."""

    labels: int
    compared: int
    agreement_with_judge: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "labels": self.labels,
            "compared": self.compared,
            "agreement_with_judge": self.agreement_with_judge,
        }


@dataclass(frozen=True)
class StaleLabel:
    """A label given on a text of the run that has changed since."""

    run_id: str
    labeler: str

    def as_dict(self) -> dict[str, str]:
        return {"run_id": self.run_id, "labeler": self.labeler}


def natural_key(run_id: str) -> tuple[list[str | int], str]:
    """Sorts run ids as a person would: ``…/5`` before ``…/20`` before ``…/30``."""
    # re.split with a group alternates text and digits, so each position holds one type.
    parts = re.split(r"(\d+)", run_id)
    return [int(p) if i % 2 else p for i, p in enumerate(parts)], run_id


def disagreements(pairs: Pairs, scale: Sequence[Score], *, ordinal: bool) -> list[Disagreement]:
    """The compared runs where the judge's score is not the humans' majority label, largest
    first: on an ordinal (Likert) ``scale`` by how many steps apart the two scores are, then
    in natural order of run id; on other scales (no size) in natural order of run id."""
    found = [
        Disagreement(
            run_id=run_id,
            human=human,
            judge=judge,
            reason=pairs.selection.current[run_id].reason,
            notes={who: label.note for who, label in pairs.labels[run_id].items() if label.note},
        )
        for run_id, human, judge in zip(pairs.runs, pairs.human, pairs.judge, strict=True)
        if human != judge
    ]
    steps = {str(value): index for index, value in enumerate(scale)}

    def size(d: Disagreement) -> int:
        human, judge = steps.get(str(d.human)), steps.get(str(d.judge))
        return abs(human - judge) if ordinal and human is not None and judge is not None else 0

    return sorted(found, key=lambda d: (-size(d), natural_key(d.run_id)))


def per_labeler(
    labels: Mapping[tuple[str, str], Label], judge_by_run: Mapping[str, Score]
) -> dict[str, LabelerFigures]:
    """Per labeller (by name): current labels, runs among those compared, and agreement
    with the judge."""
    counts: dict[str, list[int]] = {}  # labeller → [labels, compared, agree]
    for (run_id, labeler), label in sorted(labels.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        entry = counts.setdefault(labeler, [0, 0, 0])
        entry[0] += 1
        if run_id in judge_by_run:
            entry[1] += 1
            entry[2] += int(label.label == judge_by_run[run_id])
    return {
        name: LabelerFigures(total, compared, agree / compared if compared else None)
        for name, (total, compared, agree) in counts.items()
    }


def stale_labels(
    labels: Mapping[tuple[str, str], Label], item_hashes: Mapping[str, str] | None
) -> list[StaleLabel] | None:
    """The labels whose run's text has changed (None when the runs were not given)."""
    if item_hashes is None:
        return None
    return [
        StaleLabel(run_id, labeler)
        for (run_id, labeler), label in sorted(labels.items())
        if label.item_hash is not None
        and run_id in item_hashes
        and item_hashes[run_id] != label.item_hash
    ]
