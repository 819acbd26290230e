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

__all__ = ["SessionOutcome", "label_items"]


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
) -> SessionOutcome:
    """Label ``items`` one key at a time; each label is durable before the next run shows.

    ``mine`` is the labeller's current labels (run id → label) for the tally, ``stale``
    the runs among ``items`` whose earlier label no longer matches their text, and
    ``already_labelled`` how many runs of the sample were labelled before this session.
    """
    rubric = screen.rubric
    keys = screen.keys
    current: dict[str, Label] = dict(mine)
    outcome = SessionOutcome()
    history: list[int] = []
    done_here: set[str] = set()
    index = 0
    note: str | None = None
    redraw = True
    while index < len(items):
        item = items[index]
        run_id = item.run.run_id
        if redraw:
            previous = current.get(run_id)
            shown_previous = previous if (run_id in done_here or run_id in stale) else None
            screen.show(
                item,
                labelled=already_labelled + len(done_here),
                to_go=len(items) - index,
                tally=_tally(current.values(), scale_values(rubric.scale)),
                previous=shown_previous,
                stale=run_id in stale and run_id not in done_here,
                note=note,
            )
            redraw = False
        key = answers.key()
        if key is None or key == "q":
            outcome.quit = key == "q"
            return outcome
        if key == "?":
            screen.help()
            continue
        if key == "s":
            outcome.skipped += 1
            history.append(index)
            index, note, redraw = index + 1, None, True
            continue
        if key == "u":
            if not history:
                screen.message("nothing to undo in this session")
                continue
            index, note, redraw = history.pop(), None, True
            continue
        if key == "n":
            note = answers.line("note: ")
            if note is None:
                return outcome
            note = note.strip() or None
            screen.message(f"note: {note} (now the label key)" if note else "no note")
            continue
        if keys.typed and key.isdigit() and len(key) == 1:
            rest = answers.line(f"score: {key}")
            key = key + (rest or "")
        score = keys.score_for(key)
        if score is None or key in COMMANDS:
            screen.message(f"{key!r} is not a key here: {keys.legend()} (? for help)")
            continue
        run_verdicts = (verdicts or {}).get(run_id, ())
        label = Label(
            run_id=run_id,
            rubric_id=rubric.id,
            label=score,
            labeler=labeler,
            at=clock(),
            note=note,
            item_hash=item.hash,
            revealed=reveal and bool(run_verdicts),
        )
        writer.append(label)
        current[run_id] = label
        done_here.add(run_id)
        outcome.labels.append(label)
        history.append(index)
        if reveal:
            screen.reveal(score, run_verdicts)
            if pause_after_reveal:
                screen.message("press any key for the next run", "dim")
                if answers.key() in (None, "q"):
                    outcome.quit = True
                    return outcome
        index, note, redraw = index + 1, None, True
    screen.message(
        f"done: every run of the sample is labelled ({already_labelled + len(done_here)} "
        f"labelled, {outcome.skipped} skipped)",
        "green",
    )
    return outcome


def _tally(labels: Iterable[Label], order: Sequence[Score]) -> dict[Score, int]:
    counts = Counter(label.label for label in labels)
    return {score: counts[score] for score in order if counts[score]}
