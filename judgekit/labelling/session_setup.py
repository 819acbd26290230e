"""A labelling session set up: the runs, the labels so far, the judge's verdicts, the plan;
then the session itself, with the labels file open and the terminal in raw mode.

The wiring under ``judgekit label``: every input is read and checked before anything shows.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from judgekit.formats.label import Label, labels_path, read_labels
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import effective_rubric, load_rubric
from judgekit.formats.task_files import load_task_files
from judgekit.formats.verdict import Verdict, load_verdicts
from judgekit.formats.verdict_scores import ScaleCheck
from judgekit.labelling.answers import Answers, TerminalAnswers
from judgekit.labelling.labels_file import LabelWriter
from judgekit.labelling.plan import (
    LabellingPlan,
    latest_verdicts,
    plan_session,
    runs_file_items,
)
from judgekit.labelling.queue import QueueFeed, join_queue
from judgekit.labelling.sampling import Strategy
from judgekit.labelling.screen import Item, LabelScreen
from judgekit.labelling.session import OnLabel, SessionOutcome, label_items

__all__ = ["LabellingRequest", "LabellingSetup", "label_session", "set_up_labelling"]


@dataclass(frozen=True)
class LabellingRequest:
    """What to label, by whom, in which order: the options of ``judgekit label``."""

    runs: Path
    rubric_ref: str
    labeler: str
    labels_dir: Path
    strategy: Strategy = "random"
    limit: int | None = None
    seed: int = 0
    reveal: bool = False
    verdicts_file: Path | None = None  # None: the store's verdicts, when they are needed
    tasks_path: Path | None = None
    queue: bool = False  # runs from the rubric's team queue, one at a time
    double_code: float = 0.0  # with a new queue: the share of runs labelled twice


@dataclass(frozen=True)
class LabellingSetup:
    """Every input read and checked, and the session planned; nothing written yet."""

    request: LabellingRequest
    rubric: Rubric
    labels_file: Path
    mine: dict[str, Label]  # run id → the labeller's current label
    verdicts: dict[str, list[Verdict]]  # run id → the latest verdict of each judge model
    plan: LabellingPlan
    feed: QueueFeed | None = None  # with --queue: the plan is empty, the runs come from it


def set_up_labelling(request: LabellingRequest, *, warn: Callable[[str], None]) -> LabellingSetup:
    """Read the runs, the labels file and the verdicts, and plan the session. ``warn`` hears
    what the labels file says is wrong with it as soon as it is read."""
    rubric = load_rubric(request.rubric_ref)
    # Labelling shows a task's input: the suite is read as data, importing nothing.
    tasks = (
        load_task_files(request.tasks_path, resolve_code=False)
        if request.tasks_path is not None
        else None
    )
    items = runs_file_items(request.runs, tasks)
    path = labels_path(request.labels_dir, rubric.id)
    log = read_labels(path, rubric)
    for warning in log.warnings:
        warn(warning)
    verdicts = _verdicts(request, rubric)
    mine = log.by_labeler(request.labeler)
    if request.queue:
        feed = _queue_feed(request, rubric, path, items, verdicts)
        plan = LabellingPlan([], len(mine), frozenset(), len(items))
        return LabellingSetup(request, rubric, path, mine, verdicts, plan, feed)
    plan = plan_session(
        items,
        mine,
        verdicts,
        strategy=request.strategy,
        seed=request.seed,
        limit=request.limit,
    )
    return LabellingSetup(request, rubric, path, mine, verdicts, plan)


def _queue_feed(
    request: LabellingRequest,
    rubric: Rubric,
    labels_file: Path,
    items: list[Item],
    verdicts: dict[str, list[Verdict]],
) -> QueueFeed:
    """The labeller's feed from the rubric's team queue, set by these options if new."""

    def clock() -> datetime:
        return datetime.now(UTC)

    return join_queue(
        rubric,
        labels_file,
        request.labeler,
        {item.run.run_id: item for item in items},
        verdicts,
        strategy=request.strategy,
        seed=request.seed,
        double_code=request.double_code,
        limit=request.limit,
        clock=clock,
    )


def _verdicts(request: LabellingRequest, rubric: Rubric) -> dict[str, list[Verdict]]:
    """The verdicts of ``--verdicts``, else the store's when the order or --reveal needs
    them, else none."""
    if request.verdicts_file is not None:
        scales = ScaleCheck([rubric], variant=effective_rubric)
        return latest_verdicts(load_verdicts(request.verdicts_file, check=scales), rubric.id)
    if request.strategy != "random" or request.reveal:
        from judgekit.store import open_store  # SQLAlchemy loads only when verdicts are used

        with open_store() as store:
            return latest_verdicts(store.verdicts(rubric.id), rubric.id)
    return {}


def label_session(
    setup: LabellingSetup,
    *,
    screen: LabelScreen,
    answers: Answers,
    on_label: OnLabel | None = None,
) -> SessionOutcome | None:
    """Label the plan's runs, appending to the labels file as they are labelled (``on_label``
    hears each one); None when interrupted (every label given is in the file). A terminal is in raw mode throughout and
    restored however the session ends."""
    request, plan = setup.request, setup.plan
    with ExitStack() as stack:
        writer = stack.enter_context(LabelWriter(setup.labels_file))
        if isinstance(answers, TerminalAnswers):
            stack.enter_context(answers.raw_mode())
        try:
            return label_items(
                plan.to_label,
                screen=screen,
                answers=answers,
                writer=writer,
                labeler=request.labeler,
                mine=setup.mine,
                stale=plan.stale,
                already_labelled=plan.already_labelled,
                verdicts=setup.verdicts,
                reveal=request.reveal,
                pause_after_reveal=isinstance(answers, TerminalAnswers),
                on_label=on_label,
                feed=setup.feed,
            )
        except KeyboardInterrupt:
            return None
