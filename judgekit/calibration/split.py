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
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from judgekit.calibration.join import labels_by_run
from judgekit.calibration.labellers import natural_key
from judgekit.calibration.selection import majority, verdict_score
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
    "REVEALED_SPENT",
    "MeasuredOn",
    "Split",
    "SplitSummary",
    "assign_label",
    "example_runs",
    "load_split",
    "mark_spent",
    "restrict_labels",
    "run_hash",
]

LabelKey = tuple[str, str]  # (run id, labeller)
MeasuredOn = Literal["dev", "test", "all"]
EXAMPLE_SPENT = "a few-shot example in the rubric"
REVEALED_SPENT = "revealed after labelling: the judge disagreed"


@dataclass(frozen=True)
class Split:
    """A rubric's labelled runs by side, and the test labels spent (run → why)."""

    path: Path
    test_share: float
    sides: Mapping[str, Side]
    spent: dict[str, str]

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

    def summary(self, labelled: Collection[str], measured: Iterable[str] = ()) -> SplitSummary:
        """The counts of the runs in ``labelled`` (those with a current label) by side, and
        the runs ``measured``."""
        runs = set(labelled)
        test = self.test & runs
        return SplitSummary(
            runs=tuple(sorted(measured, key=natural_key)),
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "test_share": self.test_share,
            "n_dev": self.n_dev,
            "n_test": self.n_test,
            "n_test_fresh": self.n_test_fresh,
            "n_test_spent": self.n_test_spent,
        }


def run_hash(rubric_id: str, run_id: str) -> bytes:
    """The sha256 that orders runs and breaks ties: of ``rubric_id``, a NUL, ``run_id``."""
    return hashlib.sha256(f"{rubric_id}\0{run_id}".encode()).digest()


def load_split(
    rubric: Rubric,
    labels_file: Path,
    labels: Mapping[LabelKey, Label],
    *,
    record: bool = True,
) -> Split:
    """The split of ``rubric``'s labelled runs, read from the split file beside
    ``labels_file``; each labelled run not yet in it is assigned (and, with ``record``,
    appended to the file, durable on return)."""
    path = split_path(labels_file)
    share = rubric.promotion.test_share
    majorities = {
        run: majority([label.label for label in by_labeler.values()])
        for run, by_labeler in labels_by_run(labels).items()
    }

    def decide(log: SplitLog) -> list[SplitAssignment]:
        return assign_new_runs(rubric.id, share, log, majorities)

    if record:
        log = update_split_file(path, decide)
    else:
        log = read_split_file(path)
        for line in decide(log):
            log.add(line)
    sides = {run: line.side for run, line in log.assignments.items()}
    return Split(path=path, test_share=share, sides=sides, spent=dict(log.spent))


def assign_new_runs(
    rubric_id: str, share: float, log: SplitLog, majorities: Mapping[str, Any]
) -> list[SplitAssignment]:
    """The assignments of the runs of ``majorities`` (run → majority label, None when the
    labellers tie) that ``log`` has not assigned, in run-hash order."""
    counts: Counter[tuple[str, Side]] = Counter(
        (_stratum(line.label), line.side) for line in log.assignments.values()
    )
    new = sorted(
        (run for run in majorities if run not in log.assignments),
        key=lambda run: run_hash(rubric_id, run),
    )
    now = datetime.now(UTC)
    made: list[SplitAssignment] = []
    for run in new:
        stratum = _stratum(majorities[run])
        n_test, n_dev = counts[(stratum, "test")], counts[(stratum, "dev")]
        side = _short_side(n_test, n_dev, share, run_hash(rubric_id, run))
        counts[(stratum, side)] += 1
        made.append(SplitAssignment(run_id=run, side=side, label=majorities[run], at=now))
    return made


def _short_side(n_test: int, n_dev: int, share: float, hashed: bytes) -> Side:
    """The side short of ``share`` for a class with these counts; the hash breaks a tie."""
    if n_test + n_dev:
        held_out = n_test / (n_test + n_dev)
        if held_out < share:
            return "test"
        if held_out > share:
            return "dev"
    return "test" if hashed[0] < 256 * share else "dev"


def _stratum(label: Any) -> str:
    # A label's JSON-ish spelling: the scale's values are strings or small integers, so
    # "3" and 3 never meet on one scale; None is the stratum of runs whose labellers tie.
    return repr(label)


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
    verdict of the judge that disagrees (``revealed``) or the run (``run``) is one of the
    rubric's examples. Returns the run's side."""
    split = load_split(rubric, labels_file, read_labels(labels_file, rubric).current)
    if split.side(label.run_id) != "test":
        return split.side(label.run_id)
    scores = [verdict_score(rubric, verdict) for verdict in revealed]
    if any(score is not None and score != label.label for score in scores):
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
