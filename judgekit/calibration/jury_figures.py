"""A jury against the hand labels, juror by juror: ``judgekit calibrate`` on a jury rubric.

The jury is calibrated as one judge (the report's figures). Beside them, on the same
labelled runs (those the report measured: the runs the jury scored, on the side of the split
measured), each juror's own figures from the verdicts kept inside the jury's: runs compared
(a juror unscored on a run leaves it out of that juror's figures), agreement, Cohen's kappa
with its interval, and for a binary scale the false-pass and false-fail rates.

The **best juror** is the one with the highest kappa on those runs (the first in the
rubric's order on a tie; agreement decides when no kappa is defined). The jury is then
compared with it on the runs both scored, as ``calibrate --against-model`` compares two
judges (:func:`judgekit.calibration.compare.compare_codes`): the kappa difference, jury
minus best juror, with its paired-bootstrap interval, and McNemar's exact test on which
runs each got right. In its ``--json`` object judge A is the best juror and judge B
(``against``) the jury, so ``kappa_difference`` is the jury's kappa minus the juror's. Choosing the best juror on the runs it is compared on favours the
juror: a jury shown better than its best juror is better than each of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from judgekit.calibration.agreement_statistics import (
    AgreementFigures,
    ErrorRates,
    IntervalMethod,
    agreement_figures,
    error_rates,
)
from judgekit.calibration.compare import JudgeComparison, JudgeRef, compare_codes
from judgekit.calibration.join import Pairs
from judgekit.formats.rubric import Rubric, Score, normalise_score, scale_values
from judgekit.formats.rubric_file import rubric_version
from judgekit.formats.verdict import JurorVerdict

__all__ = ["JurorFigures", "JuryFigures", "jury_figures"]

BEST_BY = "the highest kappa on the runs shown"


@dataclass(frozen=True)
class JurorFigures:
    """One juror's figures (or the jury's) on the labelled runs it scored."""

    model: str
    n: int
    figures: AgreementFigures | None  # None: the juror scored none of the runs
    error_rates: ErrorRates | None  # binary rubrics only

    @property
    def kappa(self) -> float | None:
        return None if self.figures is None else self.figures.kappa

    def as_dict(self) -> dict[str, Any]:
        figures = self.figures
        rates = self.error_rates
        return {
            "model": self.model,
            "n": self.n,
            "agreement": None if figures is None else figures.agreement,
            "kappa": self.kappa,
            "kappa_ci": [None, None] if figures is None else list(figures.kappa_ci),
            "false_pass_rate": None if rates is None else rates.false_pass_rate,
            "false_pass_ci": [None, None] if rates is None else list(rates.false_pass_ci),
            "false_fail_rate": None if rates is None else rates.false_fail_rate,
            "false_fail_ci": [None, None] if rates is None else list(rates.false_fail_ci),
        }


@dataclass(frozen=True)
class JuryFigures:
    """Each juror's figures, the jury's, and the jury against its best juror."""

    jurors: list[JurorFigures]
    jury: JurorFigures
    best_juror: str | None  # None: no juror scored a compared run
    comparison: JudgeComparison | None  # the jury (B) against the best juror (A)

    def as_dict(self) -> dict[str, Any]:
        return {
            "jurors": [juror.as_dict() for juror in self.jurors],
            "jury": self.jury.as_dict(),
            "best_juror": self.best_juror,
            "best_by": BEST_BY,
            "against_best_juror": None if self.comparison is None else self.comparison.as_dict(),
        }


def jury_figures(
    rubric: Rubric, pairs: Pairs, classes: list[Score], *, interval_method: IntervalMethod
) -> JuryFigures | None:
    """The jury's figures juror by juror on the runs of ``pairs``; None for one judge."""
    if rubric.judge.jury is None:
        return None
    verdicts = pairs.verdicts
    scores = {
        juror.model: [_juror_score(rubric, v.jurors, juror.model) for v in verdicts]
        for juror in rubric.judge.jury
    }
    figures = [
        _figures(rubric, model, pairs.human, s, interval_method) for model, s in scores.items()
    ]
    jury = _figures(rubric, rubric.judge.model, pairs.human, list(pairs.judge), interval_method)
    ranked = [f for f in figures if f.n]
    if not ranked:
        return JuryFigures(figures, jury, None, None)
    best = max(ranked, key=_rank)  # max keeps the first of equals
    code = {c: i for i, c in enumerate(classes)}
    rows = [
        (code[h], code[s], code[j])
        for h, s, j in zip(pairs.human, scores[best.model], pairs.judge, strict=True)
        if s is not None
    ]
    codes = np.array(rows, dtype=np.int64)
    comparison = compare_codes(
        codes[:, 0],
        codes[:, 1],
        codes[:, 2],
        len(classes),
        against=JudgeRef(rubric.id, rubric_version(rubric), rubric.judge.model),  # the jury
        confidence=rubric.promotion.confidence,
    )
    return JuryFigures(figures, jury, best.model, comparison)


def _rank(figures: JurorFigures) -> tuple[float, float]:
    kappa = figures.kappa
    agreement = figures.figures.agreement if figures.figures is not None else None
    return (-2.0 if kappa is None else kappa, agreement or 0.0)


def _juror_score(rubric: Rubric, jurors: list[JurorVerdict] | None, model: str) -> Score | None:
    """The score ``model`` gave inside a jury's verdict; None when it is unscored there."""
    for juror in jurors or []:
        if juror.model == model and juror.status == "scored" and juror.score is not None:
            try:
                return normalise_score(rubric.scale, juror.score)
            except ValueError:
                return None
    return None


def _figures(
    rubric: Rubric,
    model: str,
    human: list[Score],
    judged: list[Score | None],
    interval_method: IntervalMethod,
) -> JurorFigures:
    kept = [(h, j) for h, j in zip(human, judged, strict=True) if j is not None]
    if not kept:
        return JurorFigures(model, 0, None, None)
    hs, js = [h for h, _ in kept], [j for _, j in kept]
    confidence = rubric.promotion.confidence
    figures = agreement_figures(
        hs,
        js,
        list(scale_values(rubric.scale)),
        likert=rubric.kind == "likert",
        confidence=confidence,
        interval_method=interval_method,
    )
    rates = error_rates(hs, js, confidence=confidence) if rubric.kind == "binary" else None
    return JurorFigures(model, len(kept), figures, rates)
