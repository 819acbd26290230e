"""Cross-validation on dev: each candidate gets one out-of-fold verdict per dev run.

Dev runs are dealt into K folds, stratified by their human label (within a label in
run-hash order, seeded). For each fold, a candidate is built only from the disagreements
of the *other* folds — its examples, or the optimizer's rewrite — and the fold's runs are
judged with it. A candidate that used a run's own disagreement to judge that run would
look better than it is; out of fold, it cannot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from judgekit.alignment.dev_set import DevItem, run_hash
from judgekit.alignment.examples import Disagreement, choose_examples, with_examples
from judgekit.alignment.judging import Asker
from judgekit.alignment.optimizer import RewriteRefused, optimizer_messages, rewritten_rubric
from judgekit.calibration.selection import verdict_score
from judgekit.formats.rubric import Rubric, Score, scale_values
from judgekit.formats.suite import TaskSet
from judgekit.formats.verdict import Verdict

__all__ = [
    "EXAMPLE_COUNTS",
    "Candidate",
    "assign_folds",
    "build_candidate",
    "candidates_for",
    "disagreements",
    "out_of_fold_scores",
]

EXAMPLE_COUNTS = (2, 4, 8)


@dataclass(frozen=True)
class Candidate:
    """A way to change the rubric: ``examples`` few-shot examples, or (None) the
    optimizer's rewritten instructions."""

    name: str
    examples: int | None

    @property
    def examples_added(self) -> int:
        return self.examples or 0


def candidates_for(n_disagreements: int, *, optimizer: bool) -> list[Candidate]:
    """Few-shot candidates of 2, 4 and 8 examples (fewer when dev has fewer disagreements:
    the counts past it would repeat one candidate), then the rewrite."""
    counts = sorted({min(k, n_disagreements) for k in EXAMPLE_COUNTS} - {0})
    found = [Candidate(f"examples-{k}", k) for k in counts]
    return found + ([Candidate("rewrite", None)] if optimizer and n_disagreements else [])


def assign_folds(
    rubric: Rubric, items: Sequence[DevItem], folds: int, *, seed: int
) -> list[list[DevItem]]:
    """``items`` dealt into ``folds`` folds, stratified by human label."""
    order = {value: index for index, value in enumerate(scale_values(rubric.scale))}
    ranked = sorted(items, key=lambda item: (order[item.human], run_hash(seed, item.run_id)))
    dealt: list[list[DevItem]] = [[] for _ in range(folds)]
    for index, item in enumerate(ranked):
        dealt[index % folds].append(item)
    return dealt


def disagreements(
    rubric: Rubric, items: Sequence[DevItem], current: Mapping[str, Verdict]
) -> list[Disagreement]:
    """The dev runs the current rubric scored otherwise than the humans, in run-id order."""
    found = []
    for item in items:
        verdict = current.get(item.run_id)
        score = verdict_score(rubric, verdict) if verdict is not None else None
        if score is not None and score != item.human:
            found.append(Disagreement(item, score, verdict.reason if verdict else None))
    return found


async def build_candidate(
    asker: Asker,
    rubric: Rubric,
    candidate: Candidate,
    pool: Sequence[Disagreement],
    tasks: TaskSet | None,
    *,
    seed: int,
) -> Rubric:
    """``candidate`` built from the disagreements of ``pool``; raises
    :class:`~judgekit.alignment.optimizer.RewriteRefused` for a rewrite that fails."""
    if candidate.examples is not None:
        chosen = choose_examples(rubric, pool, candidate.examples, seed=seed)
        return with_examples(rubric, chosen, tasks)
    if not pool:
        return rubric
    return rewritten_rubric(rubric, await asker.rewrite(optimizer_messages(rubric, pool, tasks)))


async def out_of_fold_scores(
    asker: Asker,
    rubric: Rubric,
    candidate: Candidate,
    folds: Sequence[Sequence[DevItem]],
    pool: Sequence[Disagreement],
    tasks: TaskSet | None,
    *,
    seed: int,
) -> dict[str, Score | None]:
    """Each dev run's score under ``candidate`` built without its fold's disagreements
    (None: unscored or not judged); raises ``RewriteRefused`` naming the fold."""
    scores: dict[str, Score | None] = {}
    for number, fold in enumerate(folds, start=1):
        inside = {item.run_id for item in fold}
        others = [d for d in pool if d.item.run_id not in inside]
        try:
            built = await build_candidate(asker, rubric, candidate, others, tasks, seed=seed)
        except RewriteRefused as exc:
            raise RewriteRefused(f"fold {number}: {exc}") from None
        verdicts = await asker.verdicts(built, [item.run for item in fold])
        for item in fold:
            verdict = verdicts.get(item.run_id)
            scores[item.run_id] = verdict_score(built, verdict) if verdict else None
    return scores
