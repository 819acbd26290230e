"""A bias probe end to end: read the inputs as ``judgekit judge`` does, ask the judge about
the original and the perturbed runs (through the judge cache, so a probe repeated or run
after ``judgekit judge`` asks only what it has not asked), measure, and append the result
to ``rubrics/<id>.probes.json`` for the promotion policy's ``max_flip_rate`` criteria.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path

from judgekit.calibration.promotion import default_labels_dir, record_problem
from judgekit.formats.label import labels_path, read_labels
from judgekit.formats.probe_file import Bias, ProbeResult, add_probe, probes_path
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric, one_judge, rubric_version
from judgekit.formats.run import Run, load_runs, no_runs_error
from judgekit.formats.verdict import Verdict
from judgekit.judging.cache import JudgeCache
from judgekit.judging.judge_session import JudgeSession
from judgekit.judging.pipeline import JudgeRequest, PreparedJudging, prepare_judging
from judgekit.probes.flips import FlipFigures, VerdictPair, flip_figures
from judgekit.probes.perturb import (
    padded_run,
    sections_swapped,
    swapped_pair,
    unswap_choice,
)
from judgekit.probes.self_preference import SelfPreference, self_preference

__all__ = ["ProbeOutcome", "ProbeRequest", "run_probe"]


@dataclass(frozen=True)
class ProbeRequest:
    """What ``judgekit probe`` was asked."""

    runs: Path
    rubric_ref: str
    bias: Bias
    tasks_path: Path | None = None
    base_url: str | None = None
    model: str | None = None
    limit: int | None = None
    labels_file: Path | None = None  # self only; default labels/<id>.jsonl beside rubrics/
    use_cache: bool = True


@dataclass(frozen=True)
class ProbeOutcome:
    """The result written, its figures, the file, and the policy's bar for this bias."""

    result: ProbeResult
    figures: FlipFigures | SelfPreference
    path: Path
    rubric: Rubric
    bar: float | None
    not_judged: int

    @property
    def exceeded(self) -> bool:
        """The bar is set and the interval's upper bound is above it (or undefined)."""
        high = self.result.ci[1]
        return self.bar is not None and (high is None or high > self.bar)


def run_probe(request: ProbeRequest, *, now: datetime | None = None) -> ProbeOutcome:
    """Probe, write the result, and return it."""
    one_judge(load_rubric(request.rubric_ref), "probe")
    prepared = prepare_judging(
        JudgeRequest(
            runs=request.runs,
            rubric_ref=request.rubric_ref,
            model=request.model,
            base_url=request.base_url,
            tasks_path=request.tasks_path,
            use_cache=request.use_cache,
            check_promotion=record_problem,
        )
    )
    rubric = prepared.rubric
    runs = list(islice(load_runs(request.runs), request.limit))
    if not runs:
        raise no_runs_error(request.runs)
    if request.bias == "position" and rubric.kind != "pairwise":
        perturbed_rubric = sections_swapped(rubric)  # checked before any request
    else:
        perturbed_rubric = rubric
    figures: FlipFigures | SelfPreference
    if request.bias == "self":
        figures, not_judged = _self_probe(prepared, runs, request.labels_file)
        rate, ci, n, details = figures.difference, figures.ci, figures.n, figures.as_dict()
    else:
        figures, not_judged = _flip_probe(prepared, runs, perturbed_rubric, request.bias)
        rate, ci, n, details = figures.rate, figures.ci, figures.n_compared, figures.as_dict()
    result = ProbeResult(
        bias=request.bias,
        rubric_version=rubric_version(rubric),
        model=rubric.judge.model,
        rate=rate,
        ci=ci,
        confidence=rubric.promotion.confidence,
        n=n,
        at=(now or datetime.now(UTC)).isoformat(timespec="seconds"),
        details={**details, "runs_file": str(request.runs), "not_judged": not_judged},
    )
    path = probes_path(rubric.id, _rubrics_dir(rubric))
    add_probe(path, rubric.id, result)
    bars = rubric.promotion.max_flip_rate
    bar = None if bars is None else bars.bars().get(request.bias)
    return ProbeOutcome(result, figures, path, rubric, bar, not_judged)


def _self_probe(
    prepared: PreparedJudging, runs: list[Run], labels_file: Path | None
) -> tuple[SelfPreference, int]:
    rubric = prepared.rubric
    (originals,), not_judged = _judge(prepared, [(rubric, runs)])
    path = labels_file or labels_path(default_labels_dir(_rubrics_dir(rubric)), rubric.id)
    figures = self_preference(
        runs,
        originals,
        read_labels(path, rubric).current,
        judge_model=rubric.judge.model,
        kind=rubric.kind,
        confidence=rubric.promotion.confidence,
    )
    return figures, not_judged


def _flip_probe(
    prepared: PreparedJudging, runs: list[Run], perturbed_rubric: Rubric, bias: Bias
) -> tuple[FlipFigures, int]:
    rubric = prepared.rubric
    perturbed = _perturbed_runs(runs, rubric, bias)
    (originals, changed), not_judged = _judge(
        prepared, [(rubric, runs), (perturbed_rubric, perturbed)]
    )
    unswap = rubric.kind == "pairwise" and bias == "position"
    figures = flip_figures(
        _pairs(runs, originals, changed, unswap=unswap),
        likert=rubric.kind == "likert",
        confidence=rubric.promotion.confidence,
    )
    return figures, not_judged


def _rubrics_dir(rubric: Rubric) -> Path:
    return rubric.source.parent if rubric.source is not None else Path("rubrics")


def _perturbed_runs(runs: Sequence[Run], rubric: Rubric, bias: Bias) -> list[Run]:
    if bias == "verbosity":
        return [padded_run(run, rubric) for run in runs]
    if rubric.kind == "pairwise":
        return [swapped_pair(run) for run in runs]
    return list(runs)  # pointwise position: the same runs, asked with the sections swapped


def _pairs(
    runs: Sequence[Run],
    originals: dict[str, Verdict],
    changed: dict[str, Verdict],
    *,
    unswap: bool,
) -> list[VerdictPair]:
    pairs = []
    for run in runs:
        before, after = originals.get(run.run_id), changed.get(run.run_id)
        if before is None or after is None:
            continue  # not judged (the provider failed): counted apart
        score = unswap_choice(after.score) if unswap else after.score
        pairs.append(VerdictPair(before, after, score))
    return pairs


def _keep_in(verdicts: dict[str, Verdict]) -> Callable[[Verdict], None]:
    def keep(verdict: Verdict) -> None:
        verdicts[verdict.run_id] = verdict

    return keep


def _judge(
    prepared: PreparedJudging, batches: Sequence[tuple[Rubric, Sequence[Run]]]
) -> tuple[list[dict[str, Verdict]], int]:
    """Each batch's verdicts by run, and how many runs got none (provider failures)."""
    settings = prepared.settings
    session = JudgeSession(
        prepared.provider,
        concurrency=settings.concurrency,
        max_attempts=settings.max_attempts,
        cache=JudgeCache() if prepared.use_cache else None,
        prices=prepared.prices,
        tasks=prepared.tasks,
    )

    async def judge_batches() -> tuple[list[dict[str, Verdict]], int]:
        found: list[dict[str, Verdict]] = []
        not_judged = 0
        for rubric, runs in batches:
            judge = session.judge(rubric)
            verdicts: dict[str, Verdict] = {}
            await judge.judge_many(
                runs,
                concurrency=settings.concurrency,
                on_verdict=_keep_in(verdicts),
            )
            not_judged += judge.tally.not_judged
            found.append(verdicts)
        return found, not_judged

    return session.run(judge_batches)
