"""A jury's verdict from its jurors' scores: the combine rules of :mod:`judgekit.formats.jury`.

Every rule first asks for a **quorum**: more than half of the jurors scored (an unscored
juror answered off the scale). Below it the jury is unscored: too few jurors spoke for the
jury to say anything. Then:

- ``majority``: the score more scored jurors gave than any other; a tie for the most common
  score (an unscored juror left two halves, a choices scale split) is unscored.
- ``mean``: the mean of the scored jurors' scores, rounded to a whole score of the scale, a
  half rounded down.
- ``unanimous`` (binary): a fail as soon as a juror fails; a pass only when every juror
  scored and passed; passes with a juror unscored are unscored (its pass is not known).

The jury's confidence is the share of its scored jurors that gave the combined score (the
jury's agreement); None for ``mean``, whose score no juror need have given.

>>> combine_scores("majority", ["pass", "fail", "pass"]).score
'pass'
>>> combine_scores("mean", [4, 5, None]).score
4
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from judgekit._util.number_format import threshold
from judgekit.formats.jury import Combine
from judgekit.formats.scale import Score

__all__ = ["Combined", "combine_scores"]


@dataclass(frozen=True)
class Combined:
    """The jury's score (None: unscored, ``reason`` says why) and its confidence."""

    score: Score | None
    reason: str
    confidence: float | None


def combine_scores(combine: Combine, scores: Sequence[Score | None]) -> Combined:
    """The jury's verdict from each juror's score (None: that juror is unscored), in the
    jury's order."""
    scored = [score for score in scores if score is not None]
    if 2 * len(scored) <= len(scores):
        return Combined(
            None,
            f"no quorum: {len(scored)} of {len(scores)} jurors scored, more than half must",
            None,
        )
    if combine == "mean":
        return _mean(scored, len(scores))
    if combine == "unanimous":
        return _unanimous(scored, len(scores))
    return _majority(scored, len(scores))


def _agreeing(score: Score, scored: Sequence[Score]) -> float:
    return sum(1 for s in scored if s == score) / len(scored)


def _majority(scored: Sequence[Score], jurors: int) -> Combined:
    counts = Counter(scored).most_common()
    top, top_count = counts[0]
    if len(counts) > 1 and counts[1][1] == top_count:
        tied = " and ".join(sorted(str(score) for score, count in counts if count == top_count))
        return Combined(
            None,
            f"no majority: {tied} tied at {top_count} {'juror' if top_count == 1 else 'jurors'} each",
            None,
        )
    return Combined(
        top,
        f"majority: {top} from {top_count} of {len(scored)} scored jurors ({jurors} on the jury)",
        _agreeing(top, scored),
    )


def _mean(scored: Sequence[Score], jurors: int) -> Combined:
    values = [int(score) for score in scored]
    mean = sum(values) / len(values)
    rounded = math.ceil(mean - 0.5)  # the nearest whole score, a half down
    return Combined(
        rounded,
        f"mean: {threshold(mean)} of {len(values)} scored jurors ({jurors} on the jury), "
        f"rounded to {rounded}",
        None,
    )


def _unanimous(scored: Sequence[Score], jurors: int) -> Combined:
    fails = sum(1 for score in scored if score == "fail")
    if fails:
        return Combined(
            "fail",
            f"unanimous: {fails} of {len(scored)} scored jurors failed it",
            _agreeing("fail", scored),
        )
    if len(scored) < jurors:
        return Combined(
            None,
            f"not unanimous: {len(scored)} of {jurors} jurors passed it and the others are "
            "unscored; a unanimous pass needs every juror",
            None,
        )
    return Combined("pass", f"unanimous: all {jurors} jurors passed it", 1.0)
