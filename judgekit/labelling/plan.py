"""What a labelling session will show: the sample, minus what this labeller already did.

The sample is the first ``limit`` runs in the strategy's seeded order; runs the labeller
has already labelled (with the text unchanged) are left out, so rerunning the same
command resumes where the last session stopped. A run whose text changed since it was
labelled is *stale*: it is shown again, and said to be stale.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from judgekit.formats.label import Label
from judgekit.formats.run import Run
from judgekit.formats.runs_input import iter_given_runs
from judgekit.formats.task import TaskSet
from judgekit.formats.verdict import Verdict
from judgekit.labelling.sampling import Strategy, order_for_labelling
from judgekit.labelling.screen import Item, make_item

__all__ = ["LabellingPlan", "latest_verdicts", "plan_session"]


@dataclass(frozen=True)
class LabellingPlan:
    """The runs to show, in order, and what the labeller already did in the sample."""

    to_label: list[Item]
    already_labelled: int
    stale: frozenset[str]
    sample_size: int


def runs_file_items(path: str | Path, tasks: TaskSet | None = None) -> list[Item]:
    """The runs of a runs file as the labeller sees them; a malformed line, a run id seen
    twice or a file without runs is a :class:`judgekit.errors.DataError`."""
    return items_for((run for _, run in iter_given_runs(path)), tasks)


def items_for(runs: Iterable[Run], tasks: TaskSet | None = None) -> list[Item]:
    """Each run as the labeller sees it (the task's input fills a run that has none)."""
    items: list[Item] = []
    for run in runs:
        task = tasks.get(run.task_id) if tasks is not None else None
        items.append(make_item(run, task.input if task is not None else None))
    return items


def plan_session(
    items: Sequence[Item],
    mine: Mapping[str, Label],
    verdicts: Mapping[str, Sequence[Verdict]],
    *,
    strategy: Strategy,
    seed: int,
    limit: int | None,
) -> LabellingPlan:
    """The sample in labelling order, without the runs already labelled by this labeller."""
    by_id = {item.run.run_id: item for item in items}
    order = order_for_labelling(list(by_id), verdicts, strategy, seed=seed)
    sample = order[:limit] if limit is not None else order
    stale = frozenset(
        run for run in sample if run in mine and mine[run].item_hash not in (None, by_id[run].hash)
    )
    to_label = [by_id[run] for run in sample if run not in mine or run in stale]
    return LabellingPlan(
        to_label=to_label,
        already_labelled=len(sample) - len(to_label),
        stale=stale,
        sample_size=len(sample),
    )


def latest_verdicts(verdicts: Iterable[Verdict], rubric_id: str) -> dict[str, list[Verdict]]:
    """run id → the latest verdict of each judge model on it, for one rubric."""
    latest: dict[tuple[str, str], Verdict] = {}
    for verdict in verdicts:
        if verdict.rubric_id == rubric_id:
            latest[(verdict.run_id, verdict.model)] = verdict
    grouped: dict[str, list[Verdict]] = {}
    for (run_id, _), verdict in latest.items():
        grouped.setdefault(run_id, []).append(verdict)
    return grouped
