"""What ``judgekit align`` found: the candidates' figures on dev, which one (if any) is
written, and what it cost. :func:`judgekit.alignment.render.render_text` prints it."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgekit.alignment.examples import Disagreement
from judgekit.alignment.figures import CandidateResult
from judgekit.alignment.judging import Spending
from judgekit.calibration.promotion import promotion_record_path, replaced_record
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import rubric_version

if TYPE_CHECKING:
    from judgekit.alignment.inputs import PreparedAlignment

__all__ = ["TEST_HELD_OUT", "AlignmentReport", "PromotedKappa", "promoted_kappa"]

TEST_HELD_OUT = "held out — measured by judgekit promote"


@dataclass(frozen=True)
class PromotedKappa:
    """The kappa a rubric version was promoted on, on its fresh test labels."""

    kappa: float | None
    kappa_ci: tuple[float | None, float | None]
    n: int | None
    promoted_at: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kappa": self.kappa,
            "kappa_ci": list(self.kappa_ci),
            "n": self.n,
            "promoted_at": self.promoted_at,
        }


def promoted_kappa(rubric: Rubric) -> PromotedKappa | None:
    """The test kappa of ``rubric``'s promotion record, when it promotes this version."""
    folder = rubric.source.parent if rubric.source is not None else Path("rubrics")
    record = replaced_record(promotion_record_path(rubric, folder))
    if record is None or not record.promotable:
        return None
    if record.rubric_version != rubric_version(rubric) or record.model != rubric.judge.model:
        return None
    ci = record.kappa_ci if record.kappa_ci and len(record.kappa_ci) == 2 else [None, None]
    return PromotedKappa(record.kappa, (ci[0], ci[1]), record.n, record.promoted_at)


def _as_dict(kappa: PromotedKappa | None) -> dict[str, Any] | None:
    return None if kappa is None else kappa.as_dict()


@dataclass(frozen=True)
class AlignmentReport:
    """The outcome of ``judgekit align`` (``--json`` prints :meth:`as_dict`)."""

    rubric_id: str
    version: str
    model: str
    split_file: str
    n_dev_labelled: int
    n_dev: int  # dev runs compared: a majority label and a run to judge
    n_tied: int
    n_without_run: int
    n_test: int
    folds: int
    seed: int
    confidence: float
    n_disagreements: int
    results: list[CandidateResult]  # the current rubric first
    spending: Spending
    chosen: Rubric | None = None
    new_version: str | None = None
    example_runs: list[str] = field(default_factory=list)
    refusal: str | None = None  # why the best candidate could not be built
    written: str | None = None
    # The current version's test kappa, when it is promoted: measured once, at promotion.
    test_kappa_before: PromotedKappa | None = None

    @staticmethod
    def of(
        prepared: PreparedAlignment,
        folds: int,
        pool: Sequence[Disagreement],
        results: list[CandidateResult],
        spending: Spending,
    ) -> AlignmentReport:
        rubric, dev = prepared.rubric, prepared.dev
        return AlignmentReport(
            rubric_id=rubric.id,
            version=rubric_version(rubric),
            model=rubric.judge.model,
            split_file=str(prepared.split.path),
            n_dev_labelled=dev.n_dev_labelled,
            n_dev=len(dev.items),
            n_tied=dev.n_tied,
            n_without_run=dev.n_without_run,
            n_test=prepared.n_test,
            folds=folds,
            seed=prepared.request.seed,
            confidence=rubric.promotion.confidence,
            n_disagreements=len(pool),
            results=results,
            spending=spending,
            test_kappa_before=promoted_kappa(rubric),
        )

    @property
    def current(self) -> CandidateResult:
        return self.results[0]

    @property
    def best(self) -> CandidateResult | None:
        """The candidate with the largest gain (the first of equals: fewer examples)."""
        ranked = [r for r in self.results[1:] if r.dropped is None and r.gain is not None]
        return max(ranked, key=lambda r: r.gain or 0.0) if ranked else None

    @property
    def outcome(self) -> str:
        """Why nothing is written, or what is: one sentence."""
        best = self.best
        if self.chosen is not None:
            return (
                f"{best.name if best else 'a candidate'} is written as version {self.new_version}"
            )
        if self.n_disagreements == 0:
            return "nothing written: the current rubric agrees with every dev label it scored"
        if self.refusal is not None:
            return f"nothing written: {self.refusal}"
        if best is None:
            return "nothing written: no candidate could be compared with the current rubric"
        return "nothing written: no candidate's kappa gain on dev has its interval above 0"

    def refused(self, why: str) -> AlignmentReport:
        return dataclasses.replace(self, refusal=why)

    def choose(self, rubric: Rubric, version: str, example_runs: list[str]) -> AlignmentReport:
        return dataclasses.replace(
            self, chosen=rubric, new_version=version, example_runs=example_runs
        )

    def as_dict(self) -> dict[str, Any]:
        best = self.best
        spent = self.spending
        return {
            "rubric_id": self.rubric_id,
            "rubric_version": self.version,
            "model": self.model,
            "split_file": self.split_file,
            "dev": {
                "n_labelled": self.n_dev_labelled,
                "n": self.n_dev,
                "n_tied": self.n_tied,
                "n_without_run": self.n_without_run,
                "folds": self.folds,
                "seed": self.seed,
                "n_disagreements": self.n_disagreements,
            },
            "test": {
                "n_labelled": self.n_test,
                "kappa_before": _as_dict(self.test_kappa_before),
                "kappa": None,
                "note": TEST_HELD_OUT,
            },
            "confidence": self.confidence,
            "candidates": [result.as_dict() for result in self.results],
            "best": best.name if best else None,
            "written": self.written,
            "new_version": self.new_version,
            "example_runs": self.example_runs,
            "outcome": self.outcome,
            "spending": {
                "judge_calls": spent.judge_calls,
                "cache_hits": spent.cache_hits,
                "optimizer_calls": spent.optimizer_calls,
                "not_judged": spent.not_judged,
                "cost_usd": None if spent.unknown_cost else spent.cost_usd,
            },
        }
