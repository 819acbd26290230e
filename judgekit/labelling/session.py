"""The labelling loop: show a run, take one key, append the label, show the next.

Blind by default: the judge's verdicts are handed to the session only to be revealed
*after* a label (``reveal=True``); they never reach the screen before it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from judgekit.formats.label import Label
from judgekit.formats.rubric import Score, scale_values
from judgekit.formats.verdict import Verdict
from judgekit.labelling.answers import Answers
from judgekit.labelling.keys import COMMANDS
from judgekit.labelling.labels_file import LabelWriter
from judgekit.labelling.screen import Item, LabelScreen

__all__ = ["OnLabel", "SessionOutcome", "label_items"]

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


def label_items(
    items: Sequence[Item],
    *,
    screen: LabelScreen,
    answers: Answers,
    writer: LabelWriter,
    labeler: str,
    mine: Mapping[str, Label],
    stale: frozenset[str] = frozenset(),
    already_labelled: int = 0,
    verdicts: Mapping[str, Sequence[Verdict]] | None = None,
    reveal: bool = False,
    pause_after_reveal: bool = False,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    on_label: OnLabel | None = None,
) -> SessionOutcome:
    """Label ``items`` one key at a time; each label is durable before the next run shows.

    ``mine`` is the labeller's current labels (run id → label) for the tally, ``stale``
    the runs among ``items`` whose earlier label no longer matches their text, and
    ``already_labelled`` how many runs of the sample were labelled before this session.
    ``on_label`` hears each label once it is durable, with its item and the verdicts
    revealed after it (none when nothing was revealed).
    """
    loop = _Loop(
        items,
        screen=screen,
        answers=answers,
        writer=writer,
        labeler=labeler,
        current=dict(mine),
        stale=stale,
        already_labelled=already_labelled,
        verdicts=verdicts or {},
        reveal=reveal,
        pause_after_reveal=pause_after_reveal,
        clock=clock,
        on_label=on_label,
    )
    return loop.run()


@dataclass
class _Loop:
    """One session's state: where it is in ``items``, what it did, what is on the screen."""

    items: Sequence[Item]
    screen: LabelScreen
    answers: Answers
    writer: LabelWriter
    labeler: str
    current: dict[str, Label]  # run id → the labeller's current label, for the tally
    stale: frozenset[str]
    already_labelled: int
    verdicts: Mapping[str, Sequence[Verdict]]
    reveal: bool
    pause_after_reveal: bool
    clock: Callable[[], datetime]
    on_label: OnLabel | None
    outcome: SessionOutcome = field(default_factory=SessionOutcome)
    history: list[int] = field(default_factory=list)  # the indexes to go back to with undo
    done_here: set[str] = field(default_factory=set)
    index: int = 0
    note: str | None = None
    redraw: bool = True

    def run(self) -> SessionOutcome:
        while self.index < len(self.items):
            if self.redraw:
                self._show()
                self.redraw = False
            key = self.answers.key()
            if key is None or key == "q":
                self.outcome.quit = key == "q"
                return self.outcome
            if not self._act_on(key):
                return self.outcome
        self.screen.message(
            f"done: every run of the sample is labelled "
            f"({self.already_labelled + len(self.done_here)} labelled, "
            f"{self.outcome.skipped} skipped)",
            "green",
        )
        return self.outcome

    def _show(self) -> None:
        item = self.items[self.index]
        run_id = item.run.run_id
        relabel = run_id in self.done_here or run_id in self.stale
        self.screen.show(
            item,
            labelled=self.already_labelled + len(self.done_here),
            to_go=len(self.items) - self.index,
            tally=_tally(self.current.values(), scale_values(self.screen.rubric.scale)),
            previous=self.current.get(run_id) if relabel else None,
            stale=run_id in self.stale and run_id not in self.done_here,
            note=self.note,
        )

    def _act_on(self, key: str) -> bool:
        """Do what ``key`` says; False when the session ends (the input ended, or quit)."""
        if key == "?":
            self.screen.help()
        elif key == "s":
            self.outcome.skipped += 1
            self._next()
        elif key == "u":
            self._undo()
        elif key == "n":
            return self._take_note()
        else:
            return self._label(key)
        return True

    def _next(self) -> None:
        self.history.append(self.index)
        self.index, self.note, self.redraw = self.index + 1, None, True

    def _undo(self) -> None:
        if not self.history:
            self.screen.message("nothing to undo in this session")
            return
        self.index, self.note, self.redraw = self.history.pop(), None, True

    def _take_note(self) -> bool:
        note = self.answers.line("note: ")
        if note is None:
            return False
        self.note = note.strip() or None
        self.screen.message(f"note: {self.note} (now the label key)" if self.note else "no note")
        return True

    def _label(self, key: str) -> bool:
        """Label the run shown with the score ``key`` names (a typed score reads the rest of
        its digits); a key that names none is said so, and nothing is written."""
        keys = self.screen.keys
        if keys.typed and key.isdigit() and len(key) == 1:
            rest = self.answers.line(f"score: {key}")
            key = key + (rest or "")
        score = keys.score_for(key)
        if score is None or key in COMMANDS:
            self.screen.message(f"{key!r} is not a key here: {keys.legend()} (? for help)")
            return True
        run_verdicts = self.verdicts.get(self.items[self.index].run.run_id, ())
        self._write(score, revealed=run_verdicts if self.reveal else ())
        if self.reveal:
            self.screen.reveal(score, run_verdicts)
            if self.pause_after_reveal:
                self.screen.message("press any key for the next run", "dim")
                if self.answers.key() in (None, "q"):
                    self.outcome.quit = True
                    return False
        self._next()
        return True

    def _write(self, score: Score, *, revealed: Sequence[Verdict]) -> None:
        """Append the label durably before anything else is shown."""
        item = self.items[self.index]
        label = Label(
            run_id=item.run.run_id,
            rubric_id=self.screen.rubric.id,
            label=score,
            labeler=self.labeler,
            at=self.clock(),
            note=self.note,
            item_hash=item.hash,
            revealed=bool(revealed),
        )
        self.writer.append(label)
        if self.on_label is not None:
            self.on_label(label, item, revealed)
        self.current[label.run_id] = label
        self.done_here.add(label.run_id)
        self.outcome.labels.append(label)


def _tally(labels: Iterable[Label], order: Sequence[Score]) -> dict[Score, int]:
    counts = Counter(label.label for label in labels)
    return {score: counts[score] for score in order if counts[score]}
