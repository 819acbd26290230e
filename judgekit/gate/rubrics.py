"""The gate's rubric part: did a promoted rubric's pass rate drop from the baseline batch
to the candidate's?

Each promoted binary rubric is one more one-sided pooled two-proportion test ("the
candidate's pass share is lower"), judged with Holm's procedure across the promoted
rubrics at the gate's alpha, as the tasks are. Only the verdicts of the promoted rubric
version and judge model count. Rubrics that are not promoted (drafts, rubrics being
calibrated, stale ones) are compared and reported, never failing the gate: an uncalibrated
judge's drop may be the judge's error, not the agent's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from judgekit._util.number_format import p_equation, rate
from judgekit.calibration.promotion import RubricStatus, judged_model, rubric_status
from judgekit.formats.rubric import Rubric, scale_kind
from judgekit.formats.rubric_file import rubric_version
from judgekit.stats.multiple import holm_rejections
from judgekit.stats.proportions import two_proportion_test
from judgekit.store import Store
from judgekit.store.queries import scored_verdict_sums
from judgekit.store.run_filter import EVERYTHING, RunFilter


class RubricSide(BaseModel):
    model_config = ConfigDict(frozen=True)

    n: int
    passes: int
    rate: float | None


class RubricResult(BaseModel):
    """One rubric between the two batches; ``verdict`` is "fail" only for a promoted
    rubric whose drop is significant."""

    model_config = ConfigDict(frozen=True)

    rubric_id: str
    status: str
    role: Literal["gating", "informational"]
    rubric_version: str
    model: str
    baseline: RubricSide
    candidate: RubricSide
    p_value: float | None
    verdict: Literal["pass", "fail", "info"]
    reason: str


def rubric_counts(
    store: Store,
    batch_id: int,
    rubric_id: str,
    version: str,
    model: str,
    *,
    only: RunFilter = EVERYTHING,
) -> RubricSide:
    """Scored verdicts of one rubric version and model in one batch (of the runs ``only``
    lets through), and how many pass."""
    count, passes = scored_verdict_sums(store, batch_id, rubric_id, version, model, only=only)
    passed = round(passes)
    return RubricSide(n=count, passes=passed, rate=passed / count if count else None)


def compare_rubrics(
    store: Store,
    rubrics: Sequence[Rubric],
    *,
    baseline_batch: int,
    candidate_batch: int,
    alpha: float,
    correction: Literal["holm", "none"] = "holm",
    labels_dir: Path | None = None,
    only: RunFilter = EVERYTHING,
) -> list[RubricResult]:
    """Compare every binary rubric's pass share between the two batches (of one suite's
    runs when ``only`` names one)."""
    suite_only = RunFilter(suite=only.suite)  # the batches are chosen: only the suite is left
    measured: list[
        tuple[Rubric, RubricStatus, str | None, str, str, RubricSide, RubricSide, float | None]
    ] = []
    for rubric in rubrics:
        if scale_kind(rubric.scale) != "binary":
            continue
        folder = rubric.source.parent if rubric.source is not None else Path("rubrics")
        status, why = rubric_status(rubric, folder, labels_dir=labels_dir)
        unheld = why if status == "invalid" else None  # said: what does not hold
        version, model = rubric_version(rubric), judged_model(rubric, status, folder)
        base = rubric_counts(store, baseline_batch, rubric.id, version, model, only=suite_only)
        cand = rubric_counts(store, candidate_batch, rubric.id, version, model, only=suite_only)
        p_value = None
        if base.n and cand.n:
            p_value = two_proportion_test(base.passes, base.n, cand.passes, cand.n).p_value_larger
        measured.append((rubric, status, unheld, version, model, base, cand, p_value))
    gating = {r.id: p for r, state, *_, p in measured if state == "promoted" and p is not None}
    if correction == "holm":
        dropped = holm_rejections(gating, alpha=alpha)
    else:
        dropped = {rubric_id for rubric_id, p in gating.items() if p < alpha}
    results = []
    for rubric, status, unheld, version, model, base, cand, p_value in measured:
        role: Literal["gating", "informational"] = (
            "gating" if status == "promoted" else "informational"
        )
        results.append(
            RubricResult(
                rubric_id=rubric.id,
                status=status,
                role=role,
                rubric_version=version,
                model=model,
                baseline=base,
                candidate=cand,
                p_value=p_value,
                verdict=_verdict(role, rubric.id in dropped),
                reason=_reason(rubric.id, status, base, cand, p_value, rubric.id in dropped)
                + ("" if unheld is None else f"; its promotion record does not hold: {unheld}"),
            )
        )
    return results


def _verdict(role: str, dropped: bool) -> Literal["pass", "fail", "info"]:
    if role != "gating":
        return "info"
    return "fail" if dropped else "pass"


def _reason(
    rubric_id: str,
    status: str,
    base: RubricSide,
    cand: RubricSide,
    p_value: float | None,
    dropped: bool,
) -> str:
    if base.rate is None or cand.rate is None:
        missing = "baseline" if base.rate is None else "candidate"
        return f"{rubric_id}: no scored verdicts of this version and model in the {missing}"
    rates = (
        f"{rate(base.rate)} ({base.passes}/{base.n}) → {rate(cand.rate)} ({cand.passes}/{cand.n})"
    )
    p = "" if p_value is None else f", one-sided {p_equation(p_value)}"
    if status != "promoted":
        return f"{rubric_id} ({status}, informational): {rates}{p}"
    return f"{rubric_id}: pass-rate {'drop' if dropped else 'change'} {rates}{p}"
