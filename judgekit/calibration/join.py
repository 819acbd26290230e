"""A rubric's selected verdicts joined with its hand labels: the runs compared.

Each labeller's latest label of a run counts (a later line supersedes an earlier one). A
run labelled by several people is compared through its *majority* label; a run whose
labellers tie is left out and counted (``n_tied``). A held-out test run is compared through
the label it had when it was assigned to the test side (:class:`AssignedLabel`): a tie then
counts against the judge (``n_tied_against_judge``), never left out, since the runs people
disagree on are the runs judges get wrong. Runs with both a majority label and a
verdict are compared; an unscored verdict is neither a pass nor a fail, so its run is left
out and counted (``n_unscored``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judgekit.calibration.selection import VerdictSelection, run_label, verdict_score
from judgekit.errors import CalibrationError
from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric, Score, scale_values
from judgekit.formats.verdict import Verdict

__all__ = ["AssignedLabel", "Counts", "Pairs", "against_judge", "join_labels", "labels_by_run"]

LabelsByRun = dict[str, dict[str, Label]]  # run id → labeller → their current label


@dataclass(frozen=True)
class Counts:
    """How many runs were compared, and how many were left out and why."""

    n: int
    n_unscored: int
    n_tied: int
    n_tied_against_judge: int
    n_labelled_runs: int
    n_verdicts: int
    n_labelled_without_verdict: int
    n_other_versions: int
    n_other_models: int
    unscored_rate: float | None
    # Every scored verdict of this version, labelled or not (any scale), and those of them
    # with no usable label (unlabelled, or tied): the runs a pass rate extrapolates to.
    n_scored_verdicts: int
    n_unlabelled: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "n_unscored": self.n_unscored,
            "n_tied": self.n_tied,
            "n_tied_against_judge": self.n_tied_against_judge,
            "n_labelled_runs": self.n_labelled_runs,
            "n_verdicts": self.n_verdicts,
            "n_labelled_without_verdict": self.n_labelled_without_verdict,
            "n_other_versions": self.n_other_versions,
            "n_other_models": self.n_other_models,
            "unscored_rate": self.unscored_rate,
            "n_scored_verdicts": self.n_scored_verdicts,
            "n_unlabelled": self.n_unlabelled,
        }


@dataclass(frozen=True)
class Pairs:
    """The compared runs in run-id order, each with the humans' majority label and the
    judge's score, and what the join left out."""

    selection: VerdictSelection
    labels: LabelsByRun
    shared: list[str]  # runs with both a label and a verdict
    runs: list[str]
    human: list[Score]
    judge: list[Score]
    n_unscored: int
    n_tied: int
    n_scored_verdicts: int
    tied_against_judge: list[str]  # assigned test runs whose labellers tied

    @property
    def verdicts(self) -> list[Verdict]:
        """The verdicts of the compared runs."""
        return [self.selection.current[run] for run in self.runs]

    @property
    def judge_by_run(self) -> dict[str, Score]:
        return dict(zip(self.runs, self.judge, strict=True))

    def counts(self) -> Counts:
        return Counts(
            n=len(self.runs),
            n_unscored=self.n_unscored,
            n_tied=self.n_tied,
            n_tied_against_judge=len(self.tied_against_judge),
            n_labelled_runs=len(self.labels),
            n_verdicts=len(self.selection.current),
            n_labelled_without_verdict=len(self.labels) - len(self.shared),
            n_other_versions=self.selection.n_other_versions,
            n_other_models=self.selection.n_other_models,
            unscored_rate=self.n_unscored / len(self.shared),
            n_scored_verdicts=self.n_scored_verdicts,
            n_unlabelled=self.n_scored_verdicts - len(self.runs),
        )


@dataclass(frozen=True)
class AssignedLabel:
    """A test run's label as it was when the run was assigned: the labellers' majority,
    or None when they tied, with the tied labels."""

    label: Score | None
    tied: tuple[Score, ...] = ()


def against_judge(
    tied: tuple[Score, ...], score: Score, classes: list[Score], *, ordinal: bool
) -> Score:
    """The label a tied run counts with: of the tied labels (else of the scale), one the
    judge did not give, the farthest from its score on an ordinal scale."""
    candidates = [label for label in tied if label != score] or [
        label for label in classes if label != score
    ]
    if not candidates:
        return score  # a scale of one value: nothing to disagree with
    if ordinal:
        return max(candidates, key=lambda label: abs(float(label) - float(score)))
    order = {label: index for index, label in enumerate(classes)}
    return min(candidates, key=lambda label: order.get(label, len(order)))


def labels_by_run(labels: Mapping[tuple[str, str], Label]) -> LabelsByRun:
    """(run, labeller) → label, regrouped by run, both in sorted order."""
    by_run: LabelsByRun = {}
    for (run_id, labeler), label in sorted(labels.items()):
        by_run.setdefault(run_id, {})[labeler] = label
    return by_run


def join_labels(
    rubric: Rubric,
    version: str,
    selection: VerdictSelection,
    labels: Mapping[tuple[str, str], Label],
    *,
    as_assigned: Mapping[str, AssignedLabel] | None = None,
) -> Pairs:
    """The runs to compare (those of ``as_assigned`` with the label they were assigned
    with); a :class:`CalibrationError` when labels and verdicts share no run, or none is
    left once unscored verdicts and tied labels are set aside."""
    by_run = labels_by_run(labels)
    shared = [run for run in sorted(by_run) if run in selection.current]
    if not shared:
        raise CalibrationError(_nothing_shared(rubric, version, selection, len(by_run)))
    runs: list[str] = []
    human: list[Score] = []
    judge: list[Score] = []
    n_unscored = n_tied = 0
    tied_against: list[str] = []
    classes = list(scale_values(rubric.scale))
    for run_id in shared:
        score = verdict_score(rubric, selection.current[run_id])
        if score is None:
            n_unscored += 1
            continue
        assigned = (as_assigned or {}).get(run_id)
        if assigned is None:
            label = run_label(by_run[run_id].values())
        elif assigned.label is None:
            label = against_judge(assigned.tied, score, classes, ordinal=rubric.kind == "likert")
            tied_against.append(run_id)
        else:
            label = assigned.label
        if label is None:
            n_tied += 1
            continue
        runs.append(run_id)
        human.append(label)
        judge.append(score)
    if not runs:
        raise CalibrationError(
            f"nothing to compare for {rubric.id} (version {version}): of {len(shared)} runs "
            f"with both a label and a verdict, {n_unscored} verdicts are unscored and "
            f"{n_tied} runs have tied labels"
        )
    n_scored = sum(verdict_score(rubric, v) is not None for v in selection.current.values())
    return Pairs(
        selection, by_run, shared, runs, human, judge, n_unscored, n_tied, n_scored, tied_against
    )


def _nothing_shared(
    rubric: Rubric, version: str, selection: VerdictSelection, n_labelled: int
) -> str:
    others = selection.n_other_versions
    return (
        f"no run of {rubric.id} (version {version}, judge {rubric.judge.model}) has both a "
        f"label and a verdict: {n_labelled} labelled runs, {len(selection.current)} verdicts "
        "of this version" + (f" ({others} of other versions left out)" if others else "")
    )
