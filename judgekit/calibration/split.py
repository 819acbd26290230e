"""Held-out labels: each rubric's labelled runs split into *dev* and *test*.

``calibrate`` shows figures, disagreements and examples on dev, where a person may read
them and edit the rubric; ``promote`` measures on test labels nobody has seen (*fresh*), so
the figure that decides is not the one the rubric was tuned on. The split is recorded in
``labels/<rubric_id>.split.jsonl`` (:mod:`judgekit.formats.split_file`)::

    split = load_split(rubric, labels_file, read_labels(labels_file, rubric).current)
    dev_labels = restrict_labels(labels, split.dev)

A labelled run not yet in the file is assigned the first time it is seen, stratified by its
majority label: it goes to the side that is short for its class against the policy's
``test_share``; on an exact tie, its run hash decides. Runs assigned in one go are taken in
run-hash order, so a labels file always gives the same split. A run never changes side.

What is spent never depends on whether the judge agreed: any look at test labels beside
verdicts spends every test label it was computed from (removing only the disagreements
would leave agreements, and bias the kappa that decides upward). A test run counts with the
labels it had when it was assigned: a later relabel is shown, never counted; a run whose
labellers tied counts against the judge (:mod:`judgekit.calibration.assigned_labels`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from judgekit.calibration.join import labels_by_run
from judgekit.calibration.labellers import natural_key
from judgekit.calibration.split_lost import (
    SplitLostError,
    lost_split_evidence,
    lost_split_message,
)
from judgekit.calibration.split_rule import assign_new_runs, check_split_rule, run_hash
from judgekit.formats.label import Label, read_labels
from judgekit.formats.rubric import Rubric, RubricExample
from judgekit.formats.run import Run
from judgekit.formats.split_file import (
    Side,
    SpentMark,
    SplitAssignment,
    SplitLog,
    read_split_file,
    split_path,
    update_split_file,
)
from judgekit.formats.verdict import Verdict

__all__ = [
    "EXAMPLE_SPENT",
    "NEW_SPLIT_SPENT",
    "REVEALED_SPENT",
    "MeasuredOn",
    "Split",
    "SplitLostError",
    "SplitSummary",
    "assign_label",
    "check_split_rule",
    "example_runs",
    "load_split",
    "mark_spent",
    "restrict_labels",
    "run_hash",
]

LabelKey = tuple[str, str]  # (run id, labeller)
MeasuredOn = Literal["dev", "test", "all"]
EXAMPLE_SPENT = "a few-shot example in the rubric"
REVEALED_SPENT = "revealed after labelling: the judge's verdict was shown beside it"
NEW_SPLIT_SPENT = "assigned by --new-split: whether it was read beside a verdict is unknown"
SpentMarkOrAssignment = SplitAssignment | SpentMark


@dataclass(frozen=True)
class Split:
    """A rubric's labelled runs by side, and the test labels spent (run → why)."""

    path: Path
    test_share: float
    sides: Mapping[str, Side]
    spent: dict[str, str]
    assigned: Mapping[str, SplitAssignment] = field(default_factory=dict)

    def side(self, run_id: str) -> Side | None:
        """The side of ``run_id``; None when it was never assigned (not labelled yet)."""
        return self.sides.get(run_id)

    @property
    def dev(self) -> frozenset[str]:
        return frozenset(run for run, side in self.sides.items() if side == "dev")

    @property
    def test(self) -> frozenset[str]:
        return frozenset(run for run, side in self.sides.items() if side == "test")

    @property
    def fresh_test(self) -> frozenset[str]:
        """The test runs whose labels nobody has seen next to the judge's verdict."""
        return self.test - self.spent.keys()

    def runs_of(self, measure_on: MeasuredOn, *, fresh_only: bool = False) -> frozenset[str] | None:
        """The runs measured on ``measure_on`` (test: only the fresh ones with
        ``fresh_only``); None for all."""
        if measure_on == "all":
            return None
        if measure_on == "dev":
            return self.dev
        return self.fresh_test if fresh_only else self.test

    def summary(
        self,
        labelled: Collection[str],
        measured: Iterable[str] = (),
        *,
        relabelled: Iterable[str] = (),
        tied: Iterable[str] = (),
    ) -> SplitSummary:
        """The counts of the runs in ``labelled`` (those with a current label) by side, the
        runs ``measured``, and the test runs among them ``relabelled`` since they were
        assigned or whose labellers had ``tied``."""
        runs = set(labelled)
        test = self.test & runs
        return SplitSummary(
            runs=tuple(sorted(measured, key=natural_key)),
            relabelled=tuple(sorted(relabelled, key=natural_key)),
            tied=tuple(sorted(tied, key=natural_key)),
            file=str(self.path),
            test_share=self.test_share,
            n_dev=len(self.dev & runs),
            n_test=len(test),
            n_test_fresh=len(self.fresh_test & runs),
            n_test_spent=len(test - self.fresh_test),
        )


@dataclass(frozen=True)
class SplitSummary:
    """How a report's labelled runs fall into the split, and which of them it measured
    (``runs``: long, so in the promotion record only)."""

    runs: tuple[str, ...]
    file: str
    test_share: float
    n_dev: int
    n_test: int
    n_test_fresh: int
    n_test_spent: int
    # Test runs measured whose labels changed after assignment (counted as assigned), and
    # whose labellers tied at assignment (counted against the judge).
    relabelled: tuple[str, ...] = ()
    tied: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "test_share": self.test_share,
            "n_dev": self.n_dev,
            "n_test": self.n_test,
            "n_test_fresh": self.n_test_fresh,
            "n_test_spent": self.n_test_spent,
            "test_relabelled": list(self.relabelled),
            "test_tied": list(self.tied),
        }


def load_split(
    rubric: Rubric,
    labels_file: Path,
    labels: Mapping[LabelKey, Label],
    *,
    record: bool = True,
    new_split: bool = False,
    just_labelled: str | None = None,
) -> Split:
    """The split of ``rubric``'s labelled runs, read from the split file beside
    ``labels_file``; each labelled run not yet in it is assigned (and, with ``record``,
    appended to the file, durable on return).

    The file is replayed against the rule that wrote it (a hand edit is a DataError naming
    its line). A missing file is made anew only when nothing shows the labels were split
    before (a label written by ``judgekit label`` other than ``just_labelled``'s, or a
    promotion record beside the rubric); else it is a :class:`SplitLostError` saying how to
    recover, unless ``new_split``: then every run is assigned again and each test label
    among them is spent, since whether it was read beside a verdict is no longer known."""
    path = split_path(labels_file)
    share = rubric.promotion.test_share
    by_run = labels_by_run(labels)
    if by_run and not path.exists() and not new_split:
        evidence = lost_split_evidence(rubric, labels, just_labelled=just_labelled)
        if evidence is not None:
            raise SplitLostError(lost_split_message(rubric, path, evidence))
    respent = new_split and not path.exists()

    def decide(log: SplitLog) -> list[SpentMarkOrAssignment]:
        check_split_rule(rubric.id, share, log)
        made: list[SpentMarkOrAssignment] = list(assign_new_runs(rubric.id, share, log, by_run))
        if respent:
            made += [
                SpentMark(run_id=line.run_id, spent=NEW_SPLIT_SPENT, at=line.at)
                for line in made
                if isinstance(line, SplitAssignment) and line.side == "test"
            ]
        return made

    if record:
        log = update_split_file(path, decide)
    else:
        log = read_split_file(path)
        for line in decide(log):
            log.add(line)
    return Split(
        path=path,
        test_share=share,
        sides={run: line.side for run, line in log.assignments.items()},
        spent=dict(log.spent),
        assigned=dict(log.assignments),
    )


def mark_spent(split_path: Path, run_ids: Iterable[str], why: str) -> int:
    """Mark the labels of the test runs among ``run_ids`` spent (seen with the judge's
    verdict, so no longer fit to decide a promotion), saying ``why``; returns how many were
    newly spent. Dev runs, unassigned runs and runs already spent are left as they are."""
    wanted = list(dict.fromkeys(run_ids))
    made: list[SpentMark] = []

    def decide(log: SplitLog) -> list[SpentMark]:
        now = datetime.now(UTC)
        made[:] = [
            SpentMark(run_id=run, spent=why, at=now)
            for run in wanted
            if run not in log.spent
            and run in log.assignments
            and log.assignments[run].side == "test"
        ]
        return made

    update_split_file(split_path, decide)
    return len(made)


def assign_label(
    rubric: Rubric,
    labels_file: Path,
    label: Label,
    *,
    run: Run | None = None,
    revealed: Sequence[Verdict] = (),
) -> Side | None:
    """Assign the run of a label just written to the side that is short (``judgekit
    label`` calls it after each label), and spend its test label when the person saw a
    verdict of the judge beside it (``revealed``: agreeing or not, since spending only
    disagreements would leave the agreements counted) or the run (``run``) is one of the
    rubric's examples. Returns the run's side."""
    current = read_labels(labels_file, rubric).current
    split = load_split(rubric, labels_file, current, just_labelled=label.run_id)
    if split.side(label.run_id) != "test":
        return split.side(label.run_id)
    if revealed:
        mark_spent(split.path, [label.run_id], REVEALED_SPENT)
    elif run is not None and example_runs(rubric, [(run, None)]):
        mark_spent(split.path, [label.run_id], EXAMPLE_SPENT)
    return "test"


def restrict_labels(
    labels: Mapping[LabelKey, Label], runs: Collection[str]
) -> dict[LabelKey, Label]:
    """The labels of ``runs`` only."""
    return {key: label for key, label in labels.items() if key[0] in runs}


def example_runs(rubric: Rubric, runs: Iterable[tuple[Run, str | None]]) -> list[str]:
    """The runs (each with its task's input, when the run records none) that are one of
    the rubric's few-shot examples: same input, and the same output (or, pairwise, the
    same two answers). The judge has seen their answer, so their test labels are spent."""
    examples = {_example_key(example) for example in rubric.examples}
    found = []
    for run, task_input in runs:
        asked = run.input if run.input is not None else task_input
        answers = run.metadata.get("answers")
        key: tuple[str | None, ...]
        if isinstance(answers, list) and len(answers) == 2:
            key = (asked, None, str(answers[0]), str(answers[1]))
        else:
            key = (asked, run.final_answer, None, None)
        if key in examples:
            found.append(run.run_id)
    return found


def _example_key(example: RubricExample) -> tuple[str | None, ...]:
    return (example.input, example.output, example.answer_a, example.answer_b)
