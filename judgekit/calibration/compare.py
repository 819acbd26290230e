"""Two judges on the same hand-labelled runs: ``judgekit calibrate --against-model M2`` (or
``--against RUBRIC``).

Judge A is the rubric as calibrated (its current version and judge model), judge B the
other rubric version or model. The runs compared are those with a majority hand label and a
scored verdict from both judges (verdicts selected as for the report: the latest per run of
each version and model). On those runs:

* each judge's Cohen's kappa against the humans, and ``kappa_difference`` = kappa_B -
  kappa_A (positive: B agrees better) with a **paired** bootstrap percentile interval: the
  runs are resampled with replacement (seeded) and both kappas computed on the same
  resample, all resamples at once with one ``np.bincount`` per chunk;
* McNemar's exact test on correct/incorrect per run (does one judge get more runs right?).

Both kappas are on the shared runs only, so ``kappa_a`` can differ from the report's
``kappa`` (computed on every run judge A scored).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from judgekit.calibration.report import _majority, _verdict_score, select_verdicts
from judgekit.errors import CalibrationError
from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric, Score, scale_values
from judgekit.formats.rubric_file import rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.stats import cohen_kappa_score, mcnemar_test

__all__ = ["build_comparison", "paired_kappa_differences"]

N_RESAMPLES = 2000
SEED = 0


def _kappas(tables: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Cohen's kappa of each (K, K) table in (R, K, K); nan where undefined."""
    n = tables.sum(axis=(1, 2)).astype(float)
    observed = np.trace(tables, axis1=1, axis2=2) / n
    expected = (tables.sum(axis=2) * tables.sum(axis=1)).sum(axis=1) / n**2
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (observed - expected) / (1.0 - expected)
    return np.where(expected >= 1.0, np.nan, kappa)


def paired_kappa_differences(
    human: npt.NDArray[np.int64],
    judge_a: npt.NDArray[np.int64],
    judge_b: npt.NDArray[np.int64],
    k: int,
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
    chunk_cells: int = 1 << 22,
) -> npt.NDArray[np.float64]:
    """kappa_B - kappa_A on ``n_resamples`` paired bootstrap resamples of the runs.

    Inputs are class codes 0..k-1. Each run is encoded h·K² + a·K + b; a chunk of
    resamples is a (rows, n) index matrix, counted with one flat ``np.bincount`` (a K³
    offset per row) into joint tables, whose margins are the (human, A) and (human, B)
    tables. nan where either kappa is undefined.
    """
    n = human.size
    cells = k**3
    encoded = human * k * k + judge_a * k + judge_b
    rng = np.random.default_rng(seed)
    rows = max(1, min(n_resamples, chunk_cells // max(n, 1)))
    out = np.empty(n_resamples, dtype=float)
    for start in range(0, n_resamples, rows):
        stop = min(n_resamples, start + rows)
        index = rng.integers(0, n, size=(stop - start, n))
        offsets = (np.arange(stop - start) * cells)[:, None]
        flat = np.bincount((encoded[index] + offsets).ravel(), minlength=(stop - start) * cells)
        joint = flat.reshape(stop - start, k, k, k)
        out[start:stop] = _kappas(joint.sum(axis=2)) - _kappas(joint.sum(axis=3))
    return out


def build_comparison(
    rubric_a: Rubric,
    rubric_b: Rubric,
    verdicts: Iterable[Verdict],
    labels: Mapping[tuple[str, str], Label],
    *,
    confidence: float,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> dict[str, Any]:
    """Judge A (``rubric_a``) against judge B (``rubric_b``) on the runs both scored and
    humans labelled: the ``comparison`` object of ``calibrate --json``."""
    classes = list(scale_values(rubric_a.scale))
    if list(scale_values(rubric_b.scale)) != classes:
        raise CalibrationError(
            f"cannot compare {rubric_a.id} with {rubric_b.id}: their scales differ"
        )
    all_verdicts = list(verdicts)
    version_a, version_b = rubric_version(rubric_a), rubric_version(rubric_b)
    if (rubric_a.id, version_a, rubric_a.judge.model) == (
        rubric_b.id,
        version_b,
        rubric_b.judge.model,
    ):
        raise CalibrationError("--against names the judge being calibrated; name another one")
    sel_a = select_verdicts(
        all_verdicts, rubric_a.id, version=version_a, model=rubric_a.judge.model
    )
    sel_b = select_verdicts(
        all_verdicts, rubric_b.id, version=version_b, model=rubric_b.judge.model
    )
    by_run: dict[str, list[Score]] = {}
    for (run_id, _labeler), label in sorted(labels.items()):
        by_run.setdefault(run_id, []).append(label.label)
    code = {c: i for i, c in enumerate(classes)}
    rows: list[tuple[str, int, int, int]] = []
    for run_id in sorted(by_run):
        if run_id not in sel_a.current or run_id not in sel_b.current:
            continue
        a = _verdict_score(rubric_a, sel_a.current[run_id])
        b = _verdict_score(rubric_b, sel_b.current[run_id])
        h = _majority(by_run[run_id])
        if a is None or b is None or h is None:
            continue
        rows.append((run_id, code[h], code[a], code[b]))
    against = {
        "rubric_id": rubric_b.id,
        "rubric_version": version_b,
        "model": rubric_b.judge.model,
    }
    if not rows:
        raise CalibrationError(
            f"no labelled run was scored by both {rubric_a.judge.model} (version {version_a}) "
            f"and {rubric_b.judge.model} (version {version_b}, {len(sel_b.current)} verdicts)"
        )
    human = np.array([r[1] for r in rows], dtype=np.int64)
    judge_a = np.array([r[2] for r in rows], dtype=np.int64)
    judge_b = np.array([r[3] for r in rows], dtype=np.int64)
    labels_k = list(range(len(classes)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined kappas are reported as null
        kappa_a = cohen_kappa_score(human.tolist(), judge_a.tolist(), labels=labels_k)
        kappa_b = cohen_kappa_score(human.tolist(), judge_b.tolist(), labels=labels_k)
    differences = paired_kappa_differences(
        human, judge_a, judge_b, len(classes), n_resamples=n_resamples, seed=seed
    )
    finite = differences[~np.isnan(differences)]
    ci: list[float | None] = [None, None]
    if finite.size and not (math.isnan(kappa_a) or math.isnan(kappa_b)):
        tail = (1.0 - confidence) / 2.0 * 100.0
        ci = [float(np.percentile(finite, tail)), float(np.percentile(finite, 100.0 - tail))]
    a_correct = (judge_a == human).tolist()
    b_correct = (judge_b == human).tolist()

    def num(value: float) -> float | None:
        return None if math.isnan(value) else float(value)

    return {
        "against": against,
        "n": len(rows),
        "accuracy_a": sum(a_correct) / len(rows),
        "accuracy_b": sum(b_correct) / len(rows),
        "only_a_correct": sum(a and not b for a, b in zip(a_correct, b_correct, strict=True)),
        "only_b_correct": sum(b and not a for a, b in zip(a_correct, b_correct, strict=True)),
        "kappa_a": num(kappa_a),
        "kappa_b": num(kappa_b),
        "kappa_difference": num(kappa_b - kappa_a),
        "kappa_difference_ci": ci,
        "confidence": confidence,
        "n_resamples": n_resamples,
        "n_resamples_defined": int(finite.size),
        "seed": seed,
        "mcnemar_p": mcnemar_test(a_correct, b_correct, exact=True),
    }
