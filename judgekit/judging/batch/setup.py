"""What a batch judging uses in place of the usual client, settings and prices."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from judgekit.judging.batch.batch_client import BatchClient
from judgekit.judging.batch.batch_prices import BatchPrices
from judgekit.judging.batch.options import BatchOptions
from judgekit.judging.judge_file import JudgeSettings
from judgekit.judging.pricing import PriceTable
from judgekit.providers.batch_calls import batch_api
from judgekit.providers.chat import ChatProvider

__all__ = ["BatchSetup", "batch_setup", "check_batch_api"]


@dataclass(frozen=True)
class BatchSetup:
    client: BatchClient
    settings: JudgeSettings
    prices: PriceTable


def check_batch_api(provider: ChatProvider) -> None:
    """Raise ConfigError now, before anything is written, when the provider has no batch API."""
    batch_api(provider)


def batch_setup(
    provider: ChatProvider,
    settings: JudgeSettings,
    prices: PriceTable,
    *,
    runs: int,
    options: BatchOptions,
    on_event: Callable[[str], None] | None = None,
) -> BatchSetup:
    """The client, settings and prices of a batch judging of ``runs`` runs: every run is
    started at once (each waits for the batch), and costs are at batch prices."""
    client = BatchClient(
        provider,
        poll_interval_s=options.poll_interval_s,
        max_attempts=settings.max_attempts,
        on_event=on_event,
    )
    return BatchSetup(client, replace(settings, concurrency=max(runs, 1)), BatchPrices(prices))
