"""Two judges on the same hand-labelled runs: ``judgekit calibrate --against-model M2`` (or
``--against RUBRIC``).

Judge A is the rubric as calibrated (its current version and judge model), judge B the
other rubric version or model. The runs compared are those with a majority hand label and a
scored verdict from both judges (verdicts selected as for the report: the latest per run of
each version and model). On those runs:

* each judge's Cohen's kappa against the humans, and ``kappa_difference`` = kappa_B -
  kappa_A (positive: B agrees better) with a **paired** bootstrap percentile interval: the
  runs are resampled with replacement (seeded) and both kappas computed on the same
  resample (:func:`judgekit.stats.paired_kappa_differences`);
* McNemar's exact test on correct/incorrect per run (does one judge get more runs right?).

Both kappas are on the shared runs only, so ``kappa_a`` can differ from the report's
``kappa`` (computed on every run judge A scored).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from judgekit.calibration.agreement_statistics import number
from judgekit.calibration.join import labels_by_run
from judgekit.calibration.selection import run_label, select_verdicts, verdict_score
from judgekit.errors import CalibrationError
from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric, Score, scale_values
from judgekit.formats.rubric_file import rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.stats import cohen_kappa_score, mcnemar_test, paired_kappa_differences

__all__ = ["Codes", "JudgeComparison", "JudgeRef", "build_comparison", "compare_codes"]

N_RESAMPLES = 2000
SEED = 0
Codes = npt.NDArray[np.int64]  # class codes, one per run


@dataclass(frozen=True)
class JudgeRef:
    """A judge: a rubric version under a judge model."""

    rubric_id: str
    rubric_version: str
    model: str

    @staticmethod
    def of(rubric: Rubric) -> JudgeRef:
        return JudgeRef(rubric.id, rubric_version(rubric), rubric.judge.model)

    def as_dict(self) -> dict[str, str]:
        return {
            "rubric_id": self.rubric_id,
            "rubric_version": self.rubric_version,
            "model": self.model,
        }


@dataclass(frozen=True)
class JudgeComparison:
    """Judge A (the one calibrated) against judge B (``against``) on the runs both scored:
    the ``comparison`` object of ``calibrate --json``."""

    against: JudgeRef
    n: int
    accuracy_a: float
    accuracy_b: float
    only_a_correct: int
    only_b_correct: int
    kappa_a: float | None
    kappa_b: float | None
    kappa_difference: float | None
    kappa_difference_ci: tuple[float | None, float | None]
    confidence: float
    n_resamples: int
    n_resamples_defined: int
    seed: int
    mcnemar_p: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "against": self.against.as_dict(),
            "n": self.n,
            "accuracy_a": self.accuracy_a,
            "accuracy_b": self.accuracy_b,
            "only_a_correct": self.only_a_correct,
            "only_b_correct": self.only_b_correct,
            "kappa_a": self.kappa_a,
            "kappa_b": self.kappa_b,
            "kappa_difference": self.kappa_difference,
            "kappa_difference_ci": list(self.kappa_difference_ci),
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "n_resamples_defined": self.n_resamples_defined,
            "seed": self.seed,
            "mcnemar_p": self.mcnemar_p,
        }


def build_comparison(
    rubric_a: Rubric,
    rubric_b: Rubric,
    verdicts: Iterable[Verdict],
    labels: Mapping[tuple[str, str], Label],
    *,
    confidence: float,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> JudgeComparison:
    """Judge A (``rubric_a``) against judge B (``rubric_b``) on the runs both scored and
    humans labelled."""
    classes = list(scale_values(rubric_a.scale))
    if list(scale_values(rubric_b.scale)) != classes:
        raise CalibrationError(
            f"cannot compare {rubric_a.id} with {rubric_b.id}: their scales differ"
        )
    judge_a, judge_b = JudgeRef.of(rubric_a), JudgeRef.of(rubric_b)
    if judge_a == judge_b:
        raise CalibrationError("--against names the judge being calibrated; name another one")
    human, a, b = _coded_runs(rubric_a, rubric_b, list(verdicts), labels, classes)
    return compare_codes(
        human, a, b, len(classes), against=judge_b, confidence=confidence,
        n_resamples=n_resamples, seed=seed,
    )  # fmt: skip


def compare_codes(
    human: Codes,
    a: Codes,
    b: Codes,
    n_classes: int,
    *,
    against: JudgeRef,
    confidence: float,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> JudgeComparison:
    """Judge A's class codes ``a`` against judge B's (``against``) ``b``, both against the
    humans' ``human``, one entry per run that both scored."""
    # Undefined kappas are reported as null.
    labels_k = list(range(n_classes))
    kappa_a = cohen_kappa_score(
        human.tolist(), a.tolist(), labels=labels_k, replace_undefined_by=math.nan
    )
    kappa_b = cohen_kappa_score(
        human.tolist(), b.tolist(), labels=labels_k, replace_undefined_by=math.nan
    )
    differences = paired_kappa_differences(
        human.tolist(),
        a.tolist(),
        b.tolist(),
        labels=labels_k,
        n_resamples=n_resamples,
        seed=seed,
        replace_undefined_by=math.nan,
    )
    finite = differences[~np.isnan(differences)]
    ci: tuple[float | None, float | None] = (None, None)
    if finite.size and not (math.isnan(kappa_a) or math.isnan(kappa_b)):
        tail = (1.0 - confidence) / 2.0 * 100.0
        ci = (float(np.percentile(finite, tail)), float(np.percentile(finite, 100.0 - tail)))
    a_correct, b_correct = (a == human).tolist(), (b == human).tolist()
    n = len(a_correct)
    return JudgeComparison(
        against=against,
        n=n,
        accuracy_a=sum(a_correct) / n,
        accuracy_b=sum(b_correct) / n,
        only_a_correct=sum(x and not y for x, y in zip(a_correct, b_correct, strict=True)),
        only_b_correct=sum(y and not x for x, y in zip(a_correct, b_correct, strict=True)),
        kappa_a=number(kappa_a),
        kappa_b=number(kappa_b),
        kappa_difference=number(kappa_b - kappa_a),
        kappa_difference_ci=ci,
        confidence=confidence,
        n_resamples=n_resamples,
        n_resamples_defined=int(finite.size),
        seed=seed,
        mcnemar_p=mcnemar_test(a_correct, b_correct, exact=True),
    )


def _coded_runs(
    rubric_a: Rubric,
    rubric_b: Rubric,
    verdicts: list[Verdict],
    labels: Mapping[tuple[str, str], Label],
    classes: list[Score],
) -> tuple[Codes, Codes, Codes]:
    """Class codes (human, judge A, judge B) of the labelled runs both judges scored, in
    run-id order; a :class:`CalibrationError` when there is none."""
    sel_a = select_verdicts(
        verdicts, rubric_a.id, version=rubric_version(rubric_a), model=rubric_a.judge.model
    )
    sel_b = select_verdicts(
        verdicts, rubric_b.id, version=rubric_version(rubric_b), model=rubric_b.judge.model
    )
    code = {c: i for i, c in enumerate(classes)}
    rows: list[tuple[int, int, int]] = []
    for run_id, by_labeler in labels_by_run(labels).items():
        if run_id not in sel_a.current or run_id not in sel_b.current:
            continue
        score_a = verdict_score(rubric_a, sel_a.current[run_id])
        score_b = verdict_score(rubric_b, sel_b.current[run_id])
        human = run_label(by_labeler.values())
        if score_a is None or score_b is None or human is None:
            continue
        rows.append((code[human], code[score_a], code[score_b]))
    if not rows:
        raise CalibrationError(
            f"no labelled run was scored by both {rubric_a.judge.model} (version "
            f"{rubric_version(rubric_a)}) and {rubric_b.judge.model} (version "
            f"{rubric_version(rubric_b)}, {len(sel_b.current)} verdicts)"
        )
    codes = np.array(rows, dtype=np.int64)  # one row per run: human, judge A, judge B
    return codes[:, 0], codes[:, 1], codes[:, 2]
