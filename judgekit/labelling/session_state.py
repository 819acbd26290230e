"""Where a labelling session is: the run shown, what was labelled and skipped, and what undo
goes back to — the rules every labelling front end shares (the terminal prompt, the browser).

A label is appended durably (flushed and fsynced) before the session moves on, and the
``on_label`` hook (the dev/test split) hears it once it is in the file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric, Score, scale_values
from judgekit.formats.verdict import Verdict
from judgekit.labelling.labels_file import LabelWriter
from judgekit.labelling.screen import Item

__all__ = ["OnLabel", "SessionOutcome", "SessionState"]

OnLabel = Callable[[Label, Item, Sequence[Verdict]], None]  # a label, its run, what was revealed


@dataclass
class SessionOutcome:
    """What a session did: the labels written (a relabel is a second line), how many
    times a run was skipped, and whether the labeller quit."""

    skipped: int = 0
    quit: bool = False
    labels: list[Label] = field(default_factory=list)

    @property
    def labelled(self) -> int:
        """How many distinct runs got a label."""
        return len({label.run_id for label in self.labels})


@dataclass
class SessionState:
    """One labeller's session over ``items``: which run is shown, and what was done.

    ``current`` is the labeller's current labels (run id → label) for the tally, ``stale``
    the runs among ``items`` whose earlier label no longer matches their text, and
    ``already_labelled`` how many runs of the sample were labelled before this session.
    """

    items: Sequence[Item]
    rubric: Rubric
    writer: LabelWriter
    labeler: str
    current: dict[str, Label]
    stale: frozenset[str] = frozenset()
    already_labelled: int = 0
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    on_label: OnLabel | None = None
    # A team queue's: the next run once the sample shown is used up, and what a skip does.
    more: Callable[[], Item | None] | None = None
    on_skip: Callable[[Item], None] | None = None
    outcome: SessionOutcome = field(default_factory=SessionOutcome)
    history: list[int] = field(default_factory=list)  # the indexes to go back to with undo
    done_here: set[str] = field(default_factory=set)
    index: int = 0

    @property
    def done(self) -> bool:
        """Every run of the sample has been shown and labelled or skipped."""
        return self.index >= len(self.items)

    @property
    def item(self) -> Item:
        """The run shown now (only while not :attr:`done`)."""
        return self.items[self.index]

    @property
    def labelled(self) -> int:
        """Runs of the sample labelled, before this session and in it."""
        return self.already_labelled + len(self.done_here)

    @property
    def to_go(self) -> int:
        return len(self.items) - self.index

    def previous(self) -> Label | None:
        """The labeller's earlier label of the run shown, when it is shown again (after an
        undo, or because it is stale)."""
        run_id = self.item.run.run_id
        relabel = run_id in self.done_here or run_id in self.stale
        return self.current.get(run_id) if relabel else None

    def shown_stale(self) -> bool:
        """The run shown is stale and not yet labelled again in this session."""
        run_id = self.item.run.run_id
        return run_id in self.stale and run_id not in self.done_here

    def tally(self) -> dict[Score, int]:
        """The labeller's current labels counted per score, in the scale's order."""
        return _tally(self.current.values(), scale_values(self.rubric.scale))

    def fill(self) -> None:
        """With a queue (``more``), take its next run once every run so far is done."""
        if self.more is not None and self.done:
            item = self.more()
            if item is not None:
                assert isinstance(self.items, list)  # a queue's session grows its list
                self.items.append(item)

    def skip(self) -> None:
        if self.on_skip is not None:
            self.on_skip(self.item)
        self.outcome.skipped += 1
        self._next()

    def undo(self) -> bool:
        """Show the previous run again (a new label supersedes the old); False when
        nothing in this session can be undone."""
        if not self.history:
            return False
        self.index = self.history.pop()
        return True

    def label(self, score: Score, *, note: str | None, revealed: Sequence[Verdict]) -> Label:
        """Append the label of the run shown durably, then move to the next run."""
        item = self.item
        label = Label(
            run_id=item.run.run_id,
            rubric_id=self.rubric.id,
            label=score,
            labeler=self.labeler,
            at=self.clock(),
            note=note,
            item_hash=item.hash,
            revealed=bool(revealed),
        )
        self.writer.append(label)
        if self.on_label is not None:
            self.on_label(label, item, revealed)
        self.current[label.run_id] = label
        self.done_here.add(label.run_id)
        self.outcome.labels.append(label)
        self._next()
        return label

    def _next(self) -> None:
        self.history.append(self.index)
        self.index += 1


def _tally(labels: Iterable[Label], order: Sequence[Score]) -> dict[Score, int]:
    counts = Counter(label.label for label in labels)
    return {score: counts[score] for score in order if counts[score]}
