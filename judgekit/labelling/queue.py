"""A team queue: several labellers on one rubric, each asking for their next run, none
given a run another holds — except the share of runs to label twice, which two labellers
hold at once, blind to each other, so their agreement can be measured.

A run is handed out in the queue's order (its strategy and seed, set by the first
labeller and kept in the queue file) to a labeller who has not labelled it, while fewer
labellers have labelled or hold it than it needs (two for a run to label twice, else
one). Claims, labels and releases are read under the queue file's lock, so two labellers
asking at once never get the same run; a claim not labelled within its hold (30 minutes by
default) lapses, and the run goes to the next who asks. Which runs are labelled twice is a
hash of the rubric and run ids: it depends on nothing a labeller or a judge did.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from judgekit.formats.label import read_labels
from judgekit.formats.queue_file import (
    QueueClaim,
    QueueEntry,
    QueueLine,
    QueueLog,
    QueueRelease,
    QueueSettings,
    queue_path,
    read_queue_log,
    update_queue_file,
)
from judgekit.formats.rubric import Rubric
from judgekit.formats.verdict import Verdict
from judgekit.labelling.sampling import Strategy, order_for_labelling
from judgekit.labelling.screen import Item

__all__ = ["QueueFeed", "TeamQueue", "double_coded", "enqueue_runs", "join_queue", "open_queue"]


def double_coded(rubric_id: str, run_id: str, share: float) -> bool:
    """Whether ``run_id`` is one of the share of runs two labellers label.

    >>> double_coded("goal_completion", "r1", 0.0), double_coded("goal_completion", "r1", 1.0)
    (False, True)
    """
    digest = hashlib.sha256(f"{rubric_id}\0{run_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


@dataclass(frozen=True)
class TeamQueue:
    """One rubric's queue file and its settings."""

    rubric: Rubric
    labels_file: Path
    settings: QueueSettings

    @property
    def path(self) -> Path:
        return queue_path(self.labels_file)

    def needs(self, run_id: str) -> int:
        """How many labellers label ``run_id``."""
        return 2 if double_coded(self.rubric.id, run_id, self.settings.double_code) else 1

    def claim_next(
        self, labeler: str, order: Sequence[str], *, skipped: Collection[str], now: datetime
    ) -> str | None:
        """The run ``labeler`` labels next: one they already hold, else the first in
        ``order`` that is free for them, claimed now; None when none is left."""
        found: list[str] = []

        def decide(log: QueueLog) -> list[QueueLine]:
            labelled = self._labelled_by()
            held = [
                run for run in log.held_by(labeler, now) if labeler not in labelled.get(run, ())
            ]
            if held:
                found.append(held[0])
                return []
            for run in order:
                if run in skipped or labeler in labelled.get(run, ()):
                    continue
                if log.entered and run not in log.entered:
                    continue  # a queue with entries hands out only the runs entered
                taken = labelled.get(run, set()) | log.holders(run, now)
                if len(taken) < self.needs(run):
                    found.append(run)
                    until = now + timedelta(minutes=self.settings.hold_minutes)
                    return [QueueClaim(run_id=run, labeler=labeler, at=now, until=until)]
            return []

        update_queue_file(self.path, decide)
        return found[0] if found else None

    def release(self, labeler: str, run_id: str, why: str, *, now: datetime) -> None:
        """Give ``run_id`` back, for the next labeller who asks."""

        def decide(log: QueueLog) -> list[QueueLine]:
            if labeler not in log.holders(run_id, now):
                return []
            return [QueueRelease(run_id=run_id, labeler=labeler, released=why, at=now)]

        update_queue_file(self.path, decide)

    def left(self, order: Sequence[str]) -> int:
        """Labels the queue still needs over ``order``'s runs (held runs included)."""
        labelled = self._labelled_by()
        entered = read_queue_log(self.labels_file).entered
        in_queue = [run for run in order if run in entered] if entered else order
        return sum(max(0, self.needs(run) - len(labelled.get(run, ()))) for run in in_queue)

    def _labelled_by(self) -> dict[str, set[str]]:
        labelled: dict[str, set[str]] = {}
        for (run, _), label in read_labels(self.labels_file, self.rubric).current.items():
            if not label.settles:  # a settling label is no labeller's own label of the run
                labelled.setdefault(run, set()).add(label.labeler)
        return labelled


def _default_settings(at: datetime) -> QueueSettings:
    """A new queue's settings when runs enter it before any labeller set it."""
    return QueueSettings.model_validate({"queue": 1, "at": at})


def enqueue_runs(
    labels_file: Path, runs: Mapping[str, str], *, clock: Callable[[], datetime]
) -> list[str]:
    """Enter ``runs`` (run id → why: ``review`` or ``abstained``) in the queue beside
    ``labels_file``, under its lock; a run already entered is not entered again. Returns the
    ids entered now. A queue without a file starts with the default settings."""

    entered: list[str] = []  # by the last decision, the one made under the lock

    def decide(log: QueueLog) -> list[QueueLine]:
        now = clock()
        entered[:] = [run_id for run_id in runs if run_id not in log.entered]
        if not entered:
            return []
        entries = [
            QueueEntry.model_validate({"run_id": run_id, "queued": runs[run_id], "at": now})
            for run_id in entered
        ]
        return [*([] if log.settings is not None else [_default_settings(now)]), *entries]

    update_queue_file(queue_path(labels_file), decide)
    return list(entered)


def open_queue(
    rubric: Rubric,
    labels_file: Path,
    *,
    strategy: str,
    seed: int,
    double_code: float,
    clock: Callable[[], datetime],
) -> TeamQueue:
    """The rubric's queue: its file's settings, or these, written now when it has none."""

    def decide(log: QueueLog) -> list[QueueLine]:
        if log.settings is not None:
            return []
        settings = QueueSettings.model_validate(
            {
                "queue": 1,
                "strategy": strategy,
                "seed": seed,
                "double_code": double_code,
                "at": clock(),
            }
        )
        return [settings]

    log = update_queue_file(queue_path(labels_file), decide)
    assert log.settings is not None  # written just now, or read
    return TeamQueue(rubric, labels_file, log.settings)


class QueueFeed:
    """One labeller's runs from a queue, one at a time, for a labelling session: ``more``
    claims the next (until ``limit`` labels were given), ``give_back`` releases a skipped
    one, which this session does not get again."""

    def __init__(
        self,
        queue: TeamQueue,
        labeler: str,
        items: Mapping[str, Item],
        order: Sequence[str],
        *,
        clock: Callable[[], datetime],
        limit: int | None = None,
    ) -> None:
        self.queue, self.labeler, self.items, self.order = queue, labeler, items, order
        self._clock, self._limit = clock, limit
        self.skipped: set[str] = set()
        self.claimed = 0

    def more(self) -> Item | None:
        if self._limit is not None and self.claimed >= self._limit:
            return None
        run = self.queue.claim_next(
            self.labeler, self.order, skipped=self.skipped, now=self._clock()
        )
        if run is None:
            return None
        self.claimed += 1
        return self.items[run]

    def give_back(self, item: Item) -> None:
        run = item.run.run_id
        self.queue.release(self.labeler, run, "skipped", now=self._clock())
        self.skipped.add(run)


def join_queue(
    rubric: Rubric,
    labels_file: Path,
    labeler: str,
    items: Mapping[str, Item],
    verdicts: Mapping[str, Sequence[Verdict]],
    *,
    strategy: Strategy,
    seed: int,
    double_code: float,
    limit: int | None,
    clock: Callable[[], datetime],
) -> QueueFeed:
    """``labeler``'s feed from the rubric's team queue (set up now, by these settings, when
    it has no file yet), walking the queue's own order over ``items``, whoever set it."""
    queue = open_queue(
        rubric, labels_file, strategy=strategy, seed=seed, double_code=double_code, clock=clock
    )
    settings = queue.settings
    order = order_for_labelling(list(items), verdicts, settings.strategy, seed=settings.seed)
    return QueueFeed(queue, labeler, items, order, clock=clock, limit=limit)
