"""``judgekit judge --review``: the judged runs people look at — a seeded hash-sampled share
of them, and every verdict a selective judge abstained on — entered in the rubric's
labelling queue (``judgekit label --queue`` hands them out).

Which runs are sampled for review is a hash of the rubric id, the run id and the seed, salted
apart from ``--sample``'s (the runs judged under a 10% sample are not all the runs under a
10% review), so it never depends on a verdict's score. An abstained verdict is queued for
what the judge's *confidence* was, below the promoted threshold, never for its score.

>>> from datetime import datetime, timezone
>>> from judgekit.formats.verdict import Verdict
>>> def verdict(run_id, status):
...     return Verdict(run_id=run_id, rubric_id="goal_completion", rubric_version="v",
...                    model="openai/m", status=status, score="pass",
...                    at=datetime(2026, 12, 3, tzinfo=timezone.utc))
>>> picks = runs_for_review("goal_completion", [verdict(f"r{i}", "scored") for i in range(10)]
...                         + [verdict("r10", "abstained")], share=0.3)
>>> picks
{'r3': 'review', 'r4': 'review', 'r8': 'review', 'r10': 'abstained'}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from judgekit.formats.label import labels_path
from judgekit.formats.queue_file import queue_path
from judgekit.formats.verdict import Verdict
from judgekit.judging.run_sample import sample_number, share_text
from judgekit.labelling.queue import enqueue_runs

__all__ = ["ReviewQueued", "queue_for_review", "runs_for_review"]

_SALT = "review"  # apart from --sample's numbers, which picked the runs judged


def runs_for_review(
    rubric_id: str, verdicts: Iterable[Verdict], *, share: float, seed: str = ""
) -> dict[str, str]:
    """Run id → why it goes to review (``abstained`` or ``review``), in verdict order."""
    picked: dict[str, str] = {}
    for verdict in verdicts:
        if verdict.status == "abstained":
            picked[verdict.run_id] = "abstained"
        elif sample_number(rubric_id, verdict.run_id, f"{seed}\0{_SALT}") < share:
            picked.setdefault(verdict.run_id, "review")
    return picked


@dataclass(frozen=True)
class ReviewQueued:
    """What ``--review`` entered in the queue: the runs picked, those entered now (the rest
    were already in it) and the queue file."""

    picked: dict[str, str]
    entered: list[str]
    queue_file: Path
    share: float

    @property
    def abstained(self) -> int:
        return sum(1 for why in self.picked.values() if why == "abstained")

    def line(self) -> str:
        """``queued 3 runs for review in labels/x.queue.jsonl (...)``."""
        already = len(self.picked) - len(self.entered)
        runs = "run" if len(self.entered) == 1 else "runs"
        return (
            f"queued {len(self.entered)} {runs} for review in {self.queue_file} "
            f"({len(self.picked) - self.abstained} sampled at {share_text(self.share)}, "
            f"{self.abstained} abstained; {already} already queued)"
        )

    def as_json(self) -> dict[str, object]:
        return {
            "queue_file": str(self.queue_file),
            "share": self.share,
            "picked": len(self.picked),
            "abstained": self.abstained,
            "queued": len(self.entered),
            "already_queued": len(self.picked) - len(self.entered),
            "runs": self.entered,
        }


def queue_for_review(
    rubric_id: str,
    labels_dir: Path,
    verdicts: Iterable[Verdict],
    *,
    share: float,
    seed: str,
    clock: Callable[[], datetime],
) -> ReviewQueued:
    """Enter the runs :func:`runs_for_review` picks in the rubric's queue, once each."""
    picked = runs_for_review(rubric_id, verdicts, share=share, seed=seed)
    labels_file = labels_path(labels_dir, rubric_id)
    entered = enqueue_runs(labels_file, picked, clock=clock) if picked else []
    return ReviewQueued(picked, entered, queue_path(labels_file), share)
