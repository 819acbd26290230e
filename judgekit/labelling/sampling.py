"""Which runs to label first.

- ``random``: a seeded shuffle;
- ``stratified``: the judge's verdict classes taken in turn, so a rare class is not
  drowned by a common one (with a 95/5 split, a sample of 40 holds 20 of the rare class
  when 20 exist);
- ``disagreement``: runs where repeated samples of a judge, or two judge models,
  disagree come first;
- ``uncertain``: lowest agreement among the judge's samples first;
- ``abstained``: only the runs whose current verdict is *abstained* (the judge, promoted
  selectively, was not confident enough to score them), lowest confidence first (unknown
  confidence first of all).

The judge's verdicts only order the runs; they are never shown before a label is given.
Every strategy is deterministic for a given seed, so a rerun resumes the same sample.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal, TypeVar

from judgekit.formats.verdict import Verdict

__all__ = ["STRATEGIES", "Strategy", "judge_scores", "order_for_labelling"]

Strategy = Literal["random", "stratified", "disagreement", "uncertain", "abstained"]
STRATEGIES: tuple[Strategy, ...] = (
    "random",
    "stratified",
    "disagreement",
    "uncertain",
    "abstained",
)

NO_VERDICT = "(no verdict)"

T = TypeVar("T")


def judge_scores(verdicts: Sequence[Verdict]) -> list[str]:
    """Every scored answer the judges gave on one run (each sample counts), as JSON text
    so that ``1`` and ``"1"`` stay apart."""
    scores: list[str] = []
    for verdict in verdicts:
        if verdict.samples:
            scores += [json.dumps(s.score) for s in verdict.samples if s.status == "scored"]
        elif verdict.status == "scored":
            scores.append(json.dumps(verdict.score))
    return scores


def _agreement(scores: Sequence[str]) -> float | None:
    if not scores:
        return None
    return Counter(scores).most_common(1)[0][1] / len(scores)


def _majority(scores: Sequence[str]) -> str:
    if not scores:
        return NO_VERDICT
    counts = Counter(scores)
    top = max(counts.values())
    return min(score for score, n in counts.items() if n == top)


def order_for_labelling(
    run_ids: Sequence[str],
    verdicts: Mapping[str, Sequence[Verdict]],
    strategy: Strategy,
    *,
    seed: int = 0,
) -> list[str]:
    """``run_ids`` in the order to label them.

    >>> order_for_labelling(["a", "b", "c"], {}, "random", seed=1)
    ['b', 'c', 'a']
    """
    rng = random.Random(seed)
    shuffled = list(run_ids)
    rng.shuffle(shuffled)
    if strategy == "random":
        return shuffled
    if strategy == "abstained":
        return _abstained_first(shuffled, verdicts)
    scores = {run: judge_scores(verdicts.get(run, ())) for run in shuffled}
    if strategy == "stratified":
        classes: dict[str, list[str]] = {}
        for run in shuffled:
            classes.setdefault(_majority(scores[run]), []).append(run)
        return _round_robin([classes[name] for name in sorted(classes)])
    agreement = {run: _agreement(scores[run]) for run in shuffled}
    if strategy == "disagreement":
        # sorted() is stable: within each group the seeded shuffle decides.
        return sorted(shuffled, key=lambda run: not len(set(scores[run])) > 1)
    if strategy == "uncertain":
        return sorted(shuffled, key=lambda run: (agreement[run] is None, agreement[run] or 0.0))
    raise ValueError(f"unknown strategy {strategy!r}; valid strategies are {STRATEGIES}")


def _abstained_first(
    shuffled: Sequence[str], verdicts: Mapping[str, Sequence[Verdict]]
) -> list[str]:
    """The runs with an abstained verdict, least confident first (the seeded shuffle breaks
    ties); a run's confidence is its least confident abstained verdict's."""
    lowest: dict[str, float] = {}
    for run in shuffled:
        abstained = [v for v in verdicts.get(run, ()) if v.status == "abstained"]
        if abstained:
            lowest[run] = min(-1.0 if v.confidence is None else v.confidence for v in abstained)
    return sorted(lowest, key=lambda run: lowest[run])


def _round_robin(groups: Sequence[Sequence[T]]) -> list[T]:
    """One of each group in turn, until every group is used up."""
    ordered: list[T] = []
    for position in range(max((len(g) for g in groups), default=0)):
        ordered += [group[position] for group in groups if position < len(group)]
    return ordered
