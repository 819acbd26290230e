"""``judgekit align`` as a library: read and check everything, evaluate the candidates on
dev out of fold, and write the best as a new draft version only when its gain is
significant::

    prepared = prepare_alignment(AlignRequest(rubric_ref="goal_completion", runs=path))
    report = run_alignment(prepared, announce=print)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

from judgekit.alignment.dev_set import DevItem
from judgekit.alignment.evaluation import assign_folds
from judgekit.alignment.inputs import AlignRequest, PreparedAlignment, prepare_alignment
from judgekit.alignment.judging import Asker
from judgekit.alignment.report import AlignmentReport
from judgekit.alignment.rubric_writing import write_rubric
from judgekit.alignment.search import search
from judgekit.calibration.split import mark_spent
from judgekit.judging.api_key import api_key_from_env
from judgekit.judging.budget import Budget
from judgekit.judging.cache import JudgeCache
from judgekit.judging.judge_session import JudgeSession
from judgekit.providers.client import ChatClient
from judgekit.providers.registry import make_provider, parse_model_name

__all__ = ["AlignRequest", "PreparedAlignment", "prepare_alignment", "run_alignment"]


def run_alignment(
    prepared: PreparedAlignment, *, announce: Callable[[str], None]
) -> AlignmentReport:
    """Evaluate the candidates (``announce`` hears how many judge calls before they are
    made) and write the best when its gain is significant."""
    request = prepared.request
    folds = assign_folds(prepared.rubric, prepared.dev.items, request.folds, seed=request.seed)
    report = asyncio.run(_search(prepared, folds, announce))
    if report.chosen is None:
        return report
    write_rubric(report.chosen, prepared.target, source=prepared.rubric.source)
    # Examples come from dev runs, which are never spent; a test run is only marked when it
    # is somehow among them (the split decides, not align).
    mark_spent(prepared.split.path, report.example_runs, "few-shot example in align")
    return replace(report, written=str(prepared.target))


async def _search(
    prepared: PreparedAlignment, folds: list[list[DevItem]], announce: Callable[[str], None]
) -> AlignmentReport:
    asker = _asker(prepared)
    try:
        return await search(prepared, folds, asker, announce)
    finally:
        await asker.aclose()


def _asker(prepared: PreparedAlignment) -> Asker:
    request, rubric = prepared.request, prepared.rubric
    key = api_key_from_env(request.api_key_env)
    provider_name, _ = parse_model_name(rubric.judge.model)
    judge_provider = make_provider(provider_name, base_url=request.base_url, api_key=key)
    optimizer_model = other_provider = None
    if request.optimizer_model is not None:
        name, optimizer_model = parse_model_name(request.optimizer_model)
        if name != provider_name:
            other_provider = make_provider(name, base_url=request.base_url, api_key=key)
    prices = prepared.prices
    judges = JudgeSession(
        judge_provider,
        concurrency=request.concurrency,
        max_attempts=request.max_attempts,
        cache=JudgeCache() if request.use_cache else None,
        prices=prices,
        tasks=prepared.tasks,
        rate_limits=request.rate_limits,
    )
    optimizer = None
    if optimizer_model is not None:
        client = judges.client
        if other_provider is not None:
            client = ChatClient(
                other_provider,
                concurrency=request.concurrency,
                max_attempts=request.max_attempts,
                rate_limits=request.rate_limits,
            )
        optimizer = (client, optimizer_model)
    budget = None
    if request.max_cost is not None:
        budget = Budget(request.max_cost, prices=prices, model=rubric.judge.model)
    return Asker(judges, optimizer=optimizer, budget=budget, concurrency=request.concurrency)
