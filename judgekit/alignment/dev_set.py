"""The dev runs align learns from: each labelled dev run with its text, majority label and
the labellers' notes, and the current rubric's verdict on it."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from judgekit.calibration.join import labels_by_run
from judgekit.calibration.selection import run_label
from judgekit.formats.label import Label
from judgekit.formats.rubric import Score
from judgekit.formats.run import Run

__all__ = ["DevItem", "DevSet", "dev_set", "run_hash"]


@dataclass(frozen=True)
class DevItem:
    """A labelled dev run: the run, the humans' majority label and their notes."""

    run: Run
    human: Score
    notes: tuple[str, ...]

    @property
    def run_id(self) -> str:
        return self.run.run_id


@dataclass(frozen=True)
class DevSet:
    """The dev runs align can use, and those it cannot (and why)."""

    items: list[DevItem]  # in run-id order
    n_dev_labelled: int  # dev runs with a label
    n_tied: int  # left out: their labellers tie
    n_without_run: int  # left out: not in the runs file, so they cannot be judged


def run_hash(seed: int, run_id: str) -> str:
    """The order runs are taken in for a seed: deterministic, unrelated to their ids."""
    return hashlib.sha256(f"{seed}\0{run_id}".encode()).hexdigest()


def dev_set(
    labels: Mapping[tuple[str, str], Label], dev: frozenset[str], runs: Mapping[str, Run]
) -> DevSet:
    """The labelled ``dev`` runs with a majority label and a run in ``runs``."""
    by_run = labels_by_run(labels)
    items: list[DevItem] = []
    labelled = [run_id for run_id in sorted(by_run) if run_id in dev]
    n_tied = n_without_run = 0
    for run_id in labelled:
        human = run_label(by_run[run_id].values())
        if human is None:
            n_tied += 1
            continue
        if run_id not in runs:
            n_without_run += 1
            continue
        notes = tuple(
            dict.fromkeys(
                label.note.strip()
                for label in by_run[run_id].values()
                if label.note and label.note.strip() and label.label == human
            )
        )
        items.append(DevItem(runs[run_id], human, notes))
    return DevSet(items, len(labelled), n_tied, n_without_run)
