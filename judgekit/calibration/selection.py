"""Which verdicts and labels count: the verdicts of one rubric version and judge model (the
latest per run), a verdict's score on the scale, and a run's majority hand label."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric, Score, normalise_score
from judgekit.formats.verdict import Verdict

__all__ = ["VerdictSelection", "majority", "run_label", "select_verdicts", "verdict_score"]


@dataclass(frozen=True)
class VerdictSelection:
    """The verdicts that count (run id → latest verdict of this version and model), and
    how many were left out."""

    current: dict[str, Verdict]
    n_other_versions: int
    n_other_models: int
    n_superseded: int


def select_verdicts(
    verdicts: Iterable[Verdict], rubric_id: str, *, version: str, model: str
) -> VerdictSelection:
    """Keep the verdicts of ``rubric_id`` at ``version`` by ``model``, the latest per run.

    ``verdicts`` come oldest first (file order, or the store's order by time).
    """
    current: dict[str, Verdict] = {}
    other_versions = other_models = superseded = 0
    for verdict in verdicts:
        if verdict.rubric_id != rubric_id:
            continue
        if verdict.rubric_version != version:
            other_versions += 1
            continue
        if verdict.model != model:
            other_models += 1
            continue
        if verdict.run_id in current:
            superseded += 1
        current[verdict.run_id] = verdict
    return VerdictSelection(current, other_versions, other_models, superseded)


def verdict_score(rubric: Rubric, verdict: Verdict) -> Score | None:
    """The verdict's score on the scale, or None when it is unscored (or off the scale).
    An abstained verdict's score counts: calibration measures the judge on every answer it
    gave, and a selective promotion's coverage says which of them it keeps."""
    if verdict.status == "unscored" or verdict.score is None:
        return None
    try:
        return normalise_score(rubric.scale, verdict.score)
    except ValueError:
        return None


def run_label(labels: Iterable[Label]) -> Score | None:
    """A run's hand label: the latest label that settles its labellers' disagreement, else
    their majority (None on a tie)."""
    labels = list(labels)
    settled = [label for label in labels if label.settles]
    if settled:
        chosen: Score = max(settled, key=lambda label: label.at).label
        return chosen
    return majority([label.label for label in labels])


def majority(values: Sequence[Score]) -> Score | None:
    """The most common label, or None when two or more labels tie for first.

    >>> majority(["pass", "fail", "pass"]), majority(["pass", "fail"])
    ('pass', None)
    """
    ranked = Counter(values).most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]
