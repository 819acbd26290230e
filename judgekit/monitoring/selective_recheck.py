"""The recheck of a selective promotion: does the guarantee still hold on the labels?

A rubric promoted selectively promised that, on the verdicts whose confidence reaches the
recorded threshold, agreement with the humans is at least ``1 - alpha``. The recheck counts
the kept verdicts among the freshly judged labelled runs and their disagreements, and tests
"the disagreement rate on kept verdicts is at most alpha" with the exact binomial tail:

    p = P(Bin(kept, alpha) ≥ errors)

A p below the recheck's alpha rejects the guarantee: the rubric is marked stale like a
kappa drop. Abstained verdicts count with their score: the test is about what the threshold
keeps, and a verdict the judge abstained on is below it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judgekit._util.number_format import p_equation, rate, setting, statistic, threshold
from judgekit.calibration.join import labels_by_run
from judgekit.calibration.selection import run_label, select_verdicts, verdict_score
from judgekit.calibration.selective import verdict_confidence
from judgekit.formats.label import Label
from judgekit.formats.promotion import PromotionRecord
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.stats.selective import binomial_sf

__all__ = ["GuaranteeCheck", "check_guarantee"]


@dataclass(frozen=True)
class GuaranteeCheck:
    """The guarantee of a selective promotion, tested on the labels now."""

    alpha: float  # the promised disagreement rate at most
    threshold: float
    n: int  # labelled runs with a score now
    kept: int
    errors: int
    p_value: float
    test_alpha: float  # the recheck's significance level
    broken: bool
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha,
            "threshold": self.threshold,
            "n": self.n,
            "kept": self.kept,
            "errors": self.errors,
            "coverage": self.kept / self.n if self.n else None,
            "agreement_on_kept": 1 - self.errors / self.kept if self.kept else None,
            "p_value": self.p_value,
            "test_alpha": self.test_alpha,
            "broken": self.broken,
        }


def check_guarantee(
    record: PromotionRecord,
    rubric: Rubric,
    verdicts: Sequence[Verdict],
    labels: Mapping[tuple[str, str], Label],
    *,
    alpha: float,
) -> GuaranteeCheck | None:
    """The test of the module docstring at level ``alpha`` (None without a selective
    record)."""
    promised = record.selective
    if promised is None or promised.threshold is None or promised.alpha is None:
        return None
    version = rubric_version(rubric)
    current = select_verdicts(verdicts, rubric.id, version=version, model=rubric.judge.model)
    n = kept = errors = 0
    for run_id, by_labeler in labels_by_run(labels).items():
        verdict = current.current.get(run_id)
        human = run_label(by_labeler.values())
        score = None if verdict is None else verdict_score(rubric, verdict)
        if verdict is None or human is None or score is None:
            continue
        n += 1
        confidence = verdict_confidence(verdict)
        if confidence is not None and confidence >= promised.threshold:
            kept += 1
            errors += score != human
    p_value = binomial_sf(errors, kept, promised.alpha)
    broken = p_value < alpha
    agreement = statistic(1 - errors / kept) if kept else "undefined"
    message = (
        f"selective guarantee {'broken' if broken else 'held'}: agreement on kept {agreement} "
        f"({kept - errors} of {kept} kept at threshold {threshold(promised.threshold)}, coverage "
        f"{rate(kept / n if n else None)}) against the promised ≥ {rate(1 - promised.alpha)}, "
        f"one-sided {p_equation(p_value)}, alpha {setting(alpha)}"
    )
    return GuaranteeCheck(
        alpha=promised.alpha,
        threshold=promised.threshold,
        n=n,
        kept=kept,
        errors=errors,
        p_value=p_value,
        test_alpha=alpha,
        broken=broken,
        message=message,
    )
