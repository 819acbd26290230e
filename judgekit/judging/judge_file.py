"""Judging a runs file into a folder's ``verdicts.jsonl``: the workflow under ``judgekit judge``.

The runs file is read whole and checked before anything is written (its runs are read once,
by :func:`~judgekit.judging.pipeline.read_judging_inputs`); verdicts already in the
folder for the same judge, endpoint and content of the run are kept and not asked again (the
others are kept apart, see :mod:`judgekit.judging.verdicts_file`); each new verdict is
appended durably and handed on (to the store) as it finishes. Runs that got no answer from the provider are
counted, not written, so rerunning the same command asks only for them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit._util.endpoint_url import normalise_endpoint
from judgekit.formats.jury import Juror
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import juror_rubric, rubric_version
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.judging.abstention import decide_abstention
from judgekit.judging.budget import Budget
from judgekit.judging.cache import JudgeCache
from judgekit.judging.judge import Judge, JudgeTally, JudgingStopped
from judgekit.judging.judge_session import JudgeSession, run_in_sessions
from judgekit.judging.judged_input import input_digest
from judgekit.judging.jury_judge import JuryJudge
from judgekit.judging.pricing import PriceTable
from judgekit.judging.verdicts_file import VerdictsFile
from judgekit.providers.chat import ChatProvider
from judgekit.providers.client import ChatClient

if TYPE_CHECKING:
    from judgekit.formats.task import TaskSet
    from judgekit.providers.rate_limits import RateLimits

__all__ = ["JudgeSettings", "judge_runs_file"]


@dataclass(frozen=True)
class JudgeSettings:
    """How hard to push the provider and how much to spend."""

    concurrency: int = 8
    max_attempts: int = 6
    samples: int | None = None  # None: the rubric's judge.samples
    budget: Budget | None = None  # --max-cost
    # The promoted confidence threshold of a selective promotion: less confident verdicts
    # are abstained (see judging/abstention.py).
    abstain_below: float | None = None
    rate_limits: RateLimits | None = None  # --rpm, --tpm


def judge_runs_file(
    runs: Sequence[Run],
    rubric: Rubric,
    *,
    provider: ChatProvider,
    folder: Path,
    run_ids: Collection[str],
    settings: JudgeSettings,
    cache: JudgeCache | None,
    prices: PriceTable,
    tasks: TaskSet | None = None,
    on_verdict: Callable[[Verdict], None] | None = None,
    client: ChatClient | None = None,
    jurors: Sequence[tuple[Juror, ChatProvider]] = (),
) -> JudgeTally:
    """Judge ``runs`` (a runs file's first runs, whose ids are ``run_ids``) into
    ``folder/verdicts.jsonl``.

    ``on_verdict`` sees every verdict of the file, kept ones included (recording them again
    is idempotent). Without a cache nothing is kept: every run is asked again, its earlier
    verdict left in the file until the new one is in. Raises :class:`JudgingStopped` when
    the provider cannot answer at all, and :class:`~judgekit.errors.OutputError` when the
    file cannot be written (a full disk); the verdicts finished before either stay in the
    file. ``client`` replaces the usual :class:`ChatClient` (the
    batch APIs' :class:`~judgekit.judging.batch.batch_client.BatchClient`). A jury rubric
    is judged by its ``jurors``, each over its own provider (``provider`` is then unused).
    """
    with VerdictsFile(
        folder,
        rubric_version=rubric_version(rubric),
        model=rubric.judge.model,
        run_ids=run_ids,
        endpoint=None if jurors else normalise_endpoint(provider.endpoint) or None,
        juror_endpoints={juror.model: _endpoint(p) for juror, p in jurors} if jurors else None,
        resume=cache is not None,
    ) as output:
        if output.candidates:
            # A verdict answers for its run only while the run's judged content is the same.
            output.resume(_digests(runs, rubric, tasks, output.candidates))
        sessions = [
            _session(p, settings, cache, prices, tasks, client)
            for p in [p for _, p in jurors] or [provider]
        ]
        judge = (
            _jury(sessions, rubric, settings) if jurors else _judge(sessions[0], rubric, settings)
        )
        for verdict in list(output.kept.values()):
            # Abstention is decided by each judging session from the stored confidence: a
            # promotion since the verdict was written may have set or moved the threshold.
            decided = decide_abstention(verdict, settings.abstain_below)
            if decided is not verdict:
                output.rewrite_kept(decided)
            judge.count_kept(decided)
            if on_verdict is not None:
                on_verdict(decided)

        def keep(verdict: Verdict) -> None:
            output.append(verdict)
            if on_verdict is not None:
                on_verdict(verdict)

        todo = _not_yet_judged(runs, output.kept)
        try:
            tally = run_in_sessions(
                sessions,
                lambda: judge.judge_many(todo, concurrency=settings.concurrency, on_verdict=keep),
            )
        except JudgingStopped as exc:
            output.finish(stopped=True)
            judged = judge.tally.verdicts
            kept = f"; the {judged} verdicts that finished are in {output.path}" if judged else ""
            raise JudgingStopped(
                f"{exc}; judging stopped with {len(run_ids) - judged} of {len(run_ids)} runs "
                f"not judged (nothing recorded for them{kept})"
            ) from exc
        # Runs left unjudged leave the file as it was unless a new verdict joined it.
        output.finish(stopped=tally.verdicts < len(run_ids))
        tally.set_apart = output.set_apart
        if tally.stopped_by_budget:
            # Started or not, every run left without a verdict was left for the budget.
            tally.over_budget = len(run_ids) - tally.verdicts - tally.not_judged
            if settings.budget is not None:
                tally.day_cap_stop = settings.budget.stop_message()
        return tally


def _judge(session: JudgeSession, rubric: Rubric, settings: JudgeSettings) -> Judge:
    return session.judge(
        rubric,
        samples=settings.samples,
        budget=settings.budget,
        abstain_below=settings.abstain_below,
    )


def _session(
    provider: ChatProvider,
    settings: JudgeSettings,
    cache: JudgeCache | None,
    prices: PriceTable,
    tasks: TaskSet | None,
    client: ChatClient | None,
) -> JudgeSession:
    return JudgeSession(
        provider,
        concurrency=settings.concurrency,
        max_attempts=settings.max_attempts,
        cache=cache,
        prices=prices,
        tasks=tasks,
        client=client,
        # A juror's provider has limits of its own: each session keeps --rpm and --tpm.
        rate_limits=settings.rate_limits,
    )


def _jury(sessions: Sequence[JudgeSession], rubric: Rubric, settings: JudgeSettings) -> JuryJudge:
    """One judge per juror, over its own session, sharing the budget; the jury abstains."""
    assert rubric.judge.jury is not None
    jurors = [
        session.judge(juror_rubric(rubric, juror), samples=settings.samples, budget=settings.budget)
        for session, juror in zip(sessions, rubric.judge.jury, strict=True)
    ]
    return JuryJudge(
        rubric,
        jurors,
        tasks=sessions[0].tasks,
        budget=settings.budget,
        abstain_below=settings.abstain_below,
    )


def _endpoint(provider: ChatProvider) -> str | None:
    return normalise_endpoint(provider.endpoint) or None


def _digests(
    runs: Iterable[Run], rubric: Rubric, tasks: TaskSet | None, wanted: Collection[str]
) -> dict[str, str]:
    """The content digest of each run of ``wanted``."""
    return {
        run.run_id: input_digest(rubric, run, tasks.get(run.task_id) if tasks is not None else None)
        for run in runs
        if run.run_id in wanted
    }


def _not_yet_judged(runs: Iterable[Run], kept: Collection[str]) -> Iterator[Run]:
    return (run for run in runs if run.run_id not in kept)
