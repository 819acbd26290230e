"""Labelling in the browser, under the terminal's rules: the same plan (resumed where the
labeller stopped, stale labels shown again), the same session state (one key a label, skip,
undo, a note), the same labels file appended durably under its lock, and each label's run
assigned to the dev or test side at once, spent when the judge's verdict was revealed.

With a team queue (:mod:`judgekit.labelling.queue`) the runs come one at a time from the
rubric's queue file instead of a plan, so labellers working at once — in this server or
another — never get the same run, except the share of runs to label twice.

One session per (rubric, labeller) lives in the server; every action holds one lock, since
the server answers requests on several threads.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from judgekit.calibration.selection import verdict_score
from judgekit.calibration.split import assign_label
from judgekit.errors import ConfigError
from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric, Score
from judgekit.formats.verdict import Verdict
from judgekit.labelling.keys import COMMANDS, ScaleKeys, scale_keys
from judgekit.labelling.labels_file import LabelWriter
from judgekit.labelling.plan import plan_session
from judgekit.labelling.queue import QueueFeed, join_queue
from judgekit.labelling.sampling import STRATEGIES, Strategy
from judgekit.labelling.screen import Item
from judgekit.labelling.session_state import OnLabel, SessionState
from judgekit.view.data import ViewData

__all__ = ["BrowserLabelling", "LabellingStart", "Reveal", "WebSession"]

MAX_NOTE = 2000
Clock = Callable[[], datetime]


@dataclass(frozen=True)
class LabellingStart:
    """The form that starts a session: who labels, in which order, how many, and whether
    the runs come from the rubric's team queue (with its share of runs labelled twice)."""

    labeler: str
    strategy: Strategy = "random"
    limit: int | None = None
    seed: int = 0
    reveal: bool = False
    team: bool = False
    double_code: float = 0.0


@dataclass(frozen=True)
class Reveal:
    """The judge's verdicts on the run just labelled, shown after the label (--reveal),
    each with whether its score is the label's."""

    run_id: str
    label: Score
    verdicts: Sequence[tuple[Verdict, bool]]


@dataclass
class WebSession:
    """One labeller's session on one rubric, and what the page says after the last key."""

    rubric: Rubric
    start: LabellingStart
    keys: ScaleKeys
    state: SessionState
    verdicts: dict[str, list[Verdict]]
    warnings: list[str] = field(default_factory=list)
    message: str | None = None
    reveal: Reveal | None = None
    feed: QueueFeed | None = None

    def queue_left(self) -> int | None:
        """Labels the team queue still needs (None without a queue)."""
        return self.feed.queue.left(self.feed.order) if self.feed is not None else None


class BrowserLabelling:
    """Every labelling session of one server; :meth:`act` does what a key says."""

    def __init__(self, data: ViewData, *, clock: Clock = lambda: datetime.now(UTC)) -> None:
        self._data = data
        self._clock = clock
        self._sessions: dict[tuple[str, str], WebSession] = {}
        self._writers: dict[tuple[str, str], LabelWriter] = {}
        self._lock = threading.Lock()

    def session(self, rubric: Rubric, labeler: str) -> WebSession | None:
        """The labeller's session, its next run fetched when the queue has one now."""
        with self._lock:
            session = self._sessions.get((rubric.id, labeler))
            if session is not None:
                session.state.fill()  # the queue may have a run for them now
            return session

    def begin(self, rubric: Rubric, start: LabellingStart) -> WebSession:
        """Start (or start again) ``start.labeler``'s session on ``rubric``: the plan is made
        from the labels file as it is now, so a new start resumes where the last stopped."""
        labeler = start.labeler.strip()
        if not labeler or len(labeler) > 100:
            raise ConfigError("a labeller's name is 1 to 100 characters")
        if start.strategy not in STRATEGIES:
            raise ConfigError(f"strategy is one of {', '.join(STRATEGIES)}")
        if not 0 <= start.double_code <= 1:
            raise ConfigError("the share of runs labelled twice is between 0 and 1")
        with self._lock:
            session = self._new_session(rubric, start, labeler)
            session.state.fill()
            self._sessions[(rubric.id, labeler)] = session
            return session

    def _new_session(self, rubric: Rubric, start: LabellingStart, labeler: str) -> WebSession:
        data = self._data
        path = data.labels_file(rubric)
        log = data.labels(rubric)
        mine = log.by_labeler(labeler) if log is not None else {}
        verdicts = data.latest.get(rubric.id, {})
        feed: QueueFeed | None = None
        if start.team:
            by_id = {run_id: run.item for run_id, run in data.runs.items()}
            feed = join_queue(
                rubric,
                path,
                labeler,
                by_id,
                verdicts,
                strategy=start.strategy,
                seed=start.seed,
                double_code=start.double_code,
                limit=start.limit,
                clock=self._clock,
            )
            to_label: list[Item] = []
            stale, already = frozenset[str](), len(mine)
        else:
            items = [run.item for run in data.runs.values()]
            plan = plan_session(
                items, mine, verdicts, strategy=start.strategy, seed=start.seed, limit=start.limit
            )
            to_label, stale, already = plan.to_label, plan.stale, plan.already_labelled
        state = SessionState(
            to_label,
            rubric=rubric,
            writer=self._writer(rubric, labeler, path),
            labeler=labeler,
            current=dict(mine),
            stale=stale,
            already_labelled=already,
            clock=self._clock,
            on_label=_split_as_labelled(rubric, path),
            more=feed.more if feed is not None else None,
            on_skip=feed.give_back if feed is not None else None,
        )
        warnings = list(log.warnings) if log is not None else []
        return WebSession(
            rubric,
            dataclasses.replace(start, labeler=labeler),
            scale_keys(rubric),
            state,
            verdicts,
            warnings=warnings,
            feed=feed,
        )

    def _writer(self, rubric: Rubric, labeler: str, path: Path) -> LabelWriter:
        writer = LabelWriter(path)
        replaced = self._writers.pop((rubric.id, labeler), None)
        if replaced is not None:
            replaced.close()
        self._writers[(rubric.id, labeler)] = writer
        return writer

    def act(self, session: WebSession, *, key: str, note: str | None, shown: str) -> None:
        """Do what ``key`` says on the run ``shown`` (the run id the page showed: a key
        pressed on a page left behind by another tab does nothing, and says so)."""
        with self._lock:
            session.message, session.reveal = None, None
            self._act(session, key, note, shown)
            session.state.fill()

    def _act(self, session: WebSession, key: str, note: str | None, shown: str) -> None:
        state = session.state
        if key == "u":
            if not state.undo():
                session.message = "nothing to undo in this session"
            return
        if state.done or state.item.run.run_id != shown:
            session.message = "that page was out of date; this is the run to label now"
            return
        if key == "s":  # with a queue, given back for the next labeller who asks
            state.skip()
            return
        score = session.keys.score_for(key)
        if score is None or key in COMMANDS:
            session.message = f"{key!r} is not a key here: {session.keys.legend()}"
            return
        if note is not None and len(note) > MAX_NOTE:
            session.message = f"a note is at most {MAX_NOTE} characters; nothing was written"
            return
        item = state.item
        revealed = session.verdicts.get(item.run.run_id, []) if session.start.reveal else []
        state.label(score, note=(note or "").strip() or None, revealed=revealed)
        if session.start.reveal:
            agrees = [(v, verdict_score(session.rubric, v) == score) for v in revealed]
            session.reveal = Reveal(item.run.run_id, score, agrees)

    def close(self) -> None:
        with self._lock:
            for writer in self._writers.values():
                writer.close()
            self._writers.clear()


def _split_as_labelled(rubric: Rubric, labels_file: Path) -> OnLabel:
    """Each new label's run goes to the dev or test side at once, as in the terminal."""

    def on_label(label: Label, item: Item, revealed: Sequence[Verdict]) -> None:
        assign_label(rubric, labels_file, label, run=item.run, revealed=revealed)

    return on_label
