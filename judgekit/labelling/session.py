"""The labelling loop: show a run, take one key, append the label, show the next.

Blind by default: the judge's verdicts are handed to the session only to be revealed
*after* a label (``reveal=True``); they never reach the screen before it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from judgekit.formats.label import Label
from judgekit.formats.verdict import Verdict
from judgekit.labelling.answers import Answers
from judgekit.labelling.keys import COMMANDS
from judgekit.labelling.labels_file import LabelWriter
from judgekit.labelling.queue import QueueFeed
from judgekit.labelling.screen import Item, LabelScreen
from judgekit.labelling.session_state import OnLabel, SessionOutcome, SessionState

__all__ = ["OnLabel", "SessionOutcome", "label_items"]


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
    feed: QueueFeed | None = None,
) -> SessionOutcome:
    """Label ``items`` one key at a time; each label is durable before the next run shows.
    With a team queue's ``feed``, ``items`` is empty and the runs come from the queue.

    ``mine`` is the labeller's current labels (run id → label) for the tally, ``stale``
    the runs among ``items`` whose earlier label no longer matches their text, and
    ``already_labelled`` how many runs of the sample were labelled before this session.
    ``on_label`` hears each label once it is durable, with its item and the verdicts
    revealed after it (none when nothing was revealed).
    """
    state = SessionState(
        items,
        rubric=screen.rubric,
        writer=writer,
        labeler=labeler,
        current=dict(mine),
        stale=stale,
        already_labelled=already_labelled,
        clock=clock,
        on_label=on_label,
        more=feed.more if feed is not None else None,
        on_skip=feed.give_back if feed is not None else None,
    )
    loop = _Loop(
        state,
        screen=screen,
        answers=answers,
        verdicts=verdicts or {},
        reveal=reveal,
        pause_after_reveal=pause_after_reveal,
    )
    return loop.run()


@dataclass
class _Loop:
    """The terminal's side of a session: keys read, the screen drawn, the note typed."""

    state: SessionState
    screen: LabelScreen
    answers: Answers
    verdicts: Mapping[str, Sequence[Verdict]]
    reveal: bool
    pause_after_reveal: bool
    note: str | None = None
    redraw: bool = True

    @property
    def outcome(self) -> SessionOutcome:
        return self.state.outcome

    def run(self) -> SessionOutcome:
        self.state.fill()
        while not self.state.done:
            if self.redraw:
                self._show()
                self.redraw = False
            key = self.answers.key()
            if key is None or key == "q":
                self.outcome.quit = key == "q"
                return self.outcome
            if not self._act_on(key):
                return self.outcome
            self.state.fill()
        what = (
            "nothing in the team queue for you now: every run is labelled or held by another "
            "labeller"
            if self.state.more is not None
            else "done: every run of the sample is labelled"
        )
        self.screen.message(
            f"{what} ({self.state.labelled} labelled, {self.outcome.skipped} skipped)", "green"
        )
        return self.outcome

    def _show(self) -> None:
        state = self.state
        self.screen.show(
            state.item,
            labelled=state.labelled,
            to_go=state.to_go,
            tally=state.tally(),
            previous=state.previous(),
            stale=state.shown_stale(),
            note=self.note,
        )

    def _act_on(self, key: str) -> bool:
        """Do what ``key`` says; False when the session ends (the input ended, or quit)."""
        if key == "?":
            self.screen.help()
        elif key == "s":
            self.state.skip()
            self._moved()
        elif key == "u":
            if self.state.undo():
                self._moved()
            else:
                self.screen.message("nothing to undo in this session")
        elif key == "n":
            return self._take_note()
        else:
            return self._label(key)
        return True

    def _moved(self) -> None:
        self.note, self.redraw = None, True

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
        run_verdicts = self.verdicts.get(self.state.item.run.run_id, ())
        # Appended durably before anything else is shown.
        self.state.label(score, note=self.note, revealed=run_verdicts if self.reveal else ())
        if self.reveal:
            self.screen.reveal(score, run_verdicts)
            if self.pause_after_reveal:
                self.screen.message("press any key for the next run", "dim")
                if self.answers.key() in (None, "q"):
                    self.outcome.quit = True
                    return False
        self._moved()
        return True
