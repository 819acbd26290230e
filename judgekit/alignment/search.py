"""The search itself: the current rubric's verdicts on dev, its disagreements, each
candidate judged out of fold, and the best one built from every dev disagreement."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from judgekit.alignment.dev_set import DevItem
from judgekit.alignment.evaluation import (
    Candidate,
    build_candidate,
    candidates_for,
    disagreements,
    out_of_fold_scores,
)
from judgekit.alignment.examples import Disagreement, choose_examples
from judgekit.alignment.figures import CandidateResult, candidate_result, current_result
from judgekit.alignment.judging import Asker
from judgekit.alignment.optimizer import RewriteRefused
from judgekit.alignment.report import AlignmentReport
from judgekit.calibration.selection import verdict_score
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import rubric_version

if TYPE_CHECKING:
    from judgekit.alignment.inputs import PreparedAlignment

__all__ = ["search"]


async def search(
    prepared: PreparedAlignment,
    folds: Sequence[Sequence[DevItem]],
    asker: Asker,
    announce: Callable[[str], None],
) -> AlignmentReport:
    """Every candidate's figures on dev, and the rubric to write (None: none is better)."""
    rubric, request, items = prepared.rubric, prepared.request, prepared.dev.items
    per_run = rubric.judge.samples * (2 if rubric.kind == "pairwise" else 1)
    current = dict(prepared.current)
    missing = [item.run for item in items if item.run_id not in current]
    if missing:
        announce(
            f"judging {len(missing)} dev runs with the current rubric: up to "
            f"{len(missing) * per_run} judge requests (cached answers cost nothing)"
        )
        current |= await asker.verdicts(rubric, missing)
    pool = disagreements(rubric, items, current)
    candidates = candidates_for(len(pool), optimizer=request.optimizer_model is not None)
    rewrites = f" and up to {len(folds) + 1} optimizer requests" if pool else ""
    announce(
        f"{len(candidates)} candidates × {len(items)} dev runs: up to "
        f"{len(candidates) * len(items) * per_run} judge requests"
        + (rewrites if any(c.examples is None for c in candidates) else "")
        + " (cached answers cost nothing)"
    )
    scores = {run: verdict_score(rubric, verdict) for run, verdict in current.items()}
    results = [current_result(rubric, items, scores)]
    for candidate in candidates:
        try:
            found = await out_of_fold_scores(
                asker, rubric, candidate, folds, pool, prepared.tasks, seed=request.seed
            )
        except RewriteRefused as exc:
            results.append(CandidateResult(candidate.name, 0, dropped=str(exc)))
            continue
        results.append(
            candidate_result(
                rubric,
                candidate.name,
                candidate.examples_added,
                items,
                scores,
                found,
                seed=request.seed,
            )
        )
    report = AlignmentReport.of(prepared, len(folds), pool, results, asker.spending)
    best = report.best
    if best is None or not best.significant:
        return report
    winner = next(c for c in candidates if c.name == best.name)
    return await _final(report, asker, rubric, winner, pool, prepared)


async def _final(
    report: AlignmentReport,
    asker: Asker,
    rubric: Rubric,
    winner: Candidate,
    pool: Sequence[Disagreement],
    prepared: PreparedAlignment,
) -> AlignmentReport:
    """The winner built from every dev disagreement: the rubric to write."""
    seed = prepared.request.seed
    try:
        chosen = await build_candidate(asker, rubric, winner, pool, prepared.tasks, seed=seed)
    except RewriteRefused as exc:
        return report.refused(f"the rewrite from every dev disagreement was refused: {exc}")
    runs = []
    if winner.examples is not None:
        runs = [d.item.run_id for d in choose_examples(rubric, pool, winner.examples, seed=seed)]
    return report.choose(chosen, rubric_version(chosen), runs)
