"""``--rpm``, ``--tpm`` and ``--share-rate-limits``, handed to a command as one argument."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

if TYPE_CHECKING:
    from judgekit.providers.rate_limits import RateLimits
    from judgekit.providers.token_bucket import TokenBucket

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["rate_limit_options"]


def rate_limit_options(func: F) -> F:
    """Add ``--rpm``, ``--tpm`` and ``--share-rate-limits``; the command gets
    ``rate_limits: RateLimits | None`` (None: no limit given). Below ``batch_options``, it
    refuses them with ``--batch``, which sends no requests one by one."""

    @click.option(
        "--rpm",
        type=click.IntRange(min=1),
        metavar="N",
        help="Send at most N requests a minute (a key's requests-per-minute limit, or the "
        "share of it this job may use).",
    )
    @click.option(
        "--tpm",
        type=click.IntRange(min=1),
        metavar="N",
        help="Send at most N tokens a minute, each request counted as its prompt's bound "
        "plus its max output until its answer says what it used.",
    )
    @click.option(
        "--share-rate-limits",
        is_flag=True,
        help="Count --rpm and --tpm with every judgekit process on this machine using the "
        "same JUDGEKIT_HOME and endpoint (with a PostgreSQL JUDGEKIT_DB: every process, on "
        "any machine, using that store), so together they stay within N a minute.",
    )
    @functools.wraps(func)
    def command(
        *args: Any, rpm: int | None, tpm: int | None, share_rate_limits: bool, **kwargs: Any
    ) -> Any:
        rate_limits: RateLimits | None = None
        if share_rate_limits and rpm is None and tpm is None:
            raise click.UsageError(
                "--share-rate-limits needs --rpm or --tpm: there is no limit to share"
            )
        if (rpm is not None or tpm is not None) and kwargs.get("batch") is not None:
            raise click.UsageError(
                "--rpm and --tpm pace requests sent one by one; --batch sends one batch: "
                "use one or the other"
            )
        if rpm is not None or tpm is not None:
            from judgekit.providers.rate_limits import RateLimits

            rate_limits = RateLimits(
                rpm, tpm, shared=share_rate_limits, shared_bucket=_team_buckets(share_rate_limits)
            )
        return func(*args, rate_limits=rate_limits, **kwargs)

    return cast(F, command)


def _team_buckets(shared: bool) -> Callable[[float, str], TokenBucket] | None:
    """A team's PostgreSQL store keeps shared buckets for every machine that uses it; else
    they stay in JUDGEKIT_HOME, on this machine."""
    url = os.environ.get("JUDGEKIT_DB", "")
    if not shared or not url.startswith("postgresql"):
        return None
    from judgekit.judging.store_rate_bucket import StoreBuckets

    return StoreBuckets(url)
