"""The gate as ``judgekit gate`` runs it: resolve both sides, compare their grades task by
task and, with rubrics, their verdicts; the outcome says whether the candidate passes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from judgekit.errors import ConfigError
from judgekit.formats.rubric import Rubric
from judgekit.gate.compare import GateReport, compare_results
from judgekit.gate.sides import Side, resolve_side, store_if_needed
from judgekit.store.run_filter import EVERYTHING, RunFilter

if TYPE_CHECKING:  # rubric verdicts are read from the store, which loads SQLAlchemy
    from judgekit.gate.rubrics import RubricResult
    from judgekit.store import Store

__all__ = ["BatchNeeded", "GateOutcome", "run_gate"]


class BatchNeeded(ConfigError):
    """Rubrics were to be compared but a side has no batch in the store: the options, not
    a file, are wrong."""


@dataclass(frozen=True)
class GateOutcome:
    """The per-task report and the rubrics' results; ``passed`` is false when either fails."""

    report: GateReport
    rubrics: list[RubricResult]

    @property
    def passed(self) -> bool:
        return self.report.passed and not any(r.verdict == "fail" for r in self.rubrics)

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON data, with the overall ``passed`` and the rubrics."""
        # model_dump_json writes an infinite change (a mean up from 0) as null, valid JSON.
        data: dict[str, Any] = json.loads(self.report.model_dump_json())
        data["passed"] = self.passed
        data["rubrics"] = [r.model_dump() for r in self.rubrics]
        return data


def run_gate(
    baseline: str,
    candidate: str,
    rubrics: Sequence[Rubric] = (),
    *,
    alpha: float = 0.05,
    cost_tolerance: float = 0.2,
    turns_tolerance: float = 0.2,
    correction: Literal["holm", "none"] = "holm",
    only: RunFilter = EVERYTHING,
) -> GateOutcome:
    """Gate ``candidate`` against ``baseline``: each a results file or folder, or a store
    reference (``batch:ID``, ``latest:BRANCH``). Comparing ``rubrics`` needs both sides'
    batches in the store, else :class:`BatchNeeded`. ``only`` chooses the baseline's batch
    when it is a store reference (``--branch main``: never a pull request's) and narrows both
    sides to its suite; the candidate is whatever it names."""
    with store_if_needed([baseline, candidate], bool(rubrics)) as store:
        base = resolve_side(baseline, store, only)
        cand = resolve_side(candidate, store, RunFilter(suite=only.suite))
        report = compare_results(
            base.grades,
            cand.grades,
            alpha=alpha,
            cost_tolerance=cost_tolerance,
            turns_tolerance=turns_tolerance,
            correction=correction,
        )
        rubric_results = _compare_rubrics(store, rubrics, base, cand, alpha, correction, only)
    return GateOutcome(report, rubric_results)


def _compare_rubrics(
    store: Store | None,
    rubrics: Sequence[Rubric],
    base: Side,
    cand: Side,
    alpha: float,
    correction: Literal["holm", "none"],
    only: RunFilter,
) -> list[RubricResult]:
    if not rubrics:
        return []
    assert store is not None
    missing = [side.name for side in (base, cand) if side.batch_id is None]
    if missing:
        raise BatchNeeded(
            "--rubric compares verdicts between two batches of the store, and "
            f"{' and '.join(missing)} has none: give batch:ID or latest:BRANCH, or a results "
            "folder whose runs.jsonl was judged with the store on"
        )
    from judgekit.gate.rubrics import compare_rubrics

    assert base.batch_id is not None and cand.batch_id is not None
    return compare_rubrics(
        store,
        rubrics,
        baseline_batch=base.batch_id,
        candidate_batch=cand.batch_id,
        alpha=alpha,
        correction=correction,
        only=only,
    )
