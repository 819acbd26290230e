"""``--batch`` and ``--poll-interval`` of ``judgekit judge``, handed to it as one argument."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from judgekit.cli.number_types import Seconds

if TYPE_CHECKING:
    from judgekit.judging.batch.options import BatchOptions

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["batch_options", "print_batch_event"]


def batch_options(func: F) -> F:
    """Add ``--batch`` and ``--poll-interval``; the command gets ``batch: BatchOptions | None``."""

    @click.option(
        "--batch",
        "batch_flag",
        is_flag=True,
        help="Send the requests through the provider's batch API (OpenAI Batch, Anthropic "
        "Message Batches): half the price, answered within 24 hours. A rerun polls the batch "
        "it submitted instead of sending it again.",
    )
    @click.option(
        "--poll-interval",
        default=30.0,
        show_default=True,
        type=Seconds(),
        metavar="SECONDS",
        help="With --batch: seconds between two looks at a batch.",
    )
    @functools.wraps(func)
    def command(*args: Any, batch_flag: bool, poll_interval: float, **kwargs: Any) -> Any:
        batch: BatchOptions | None = None
        if batch_flag:
            # terminal_text (and rich) too, before any batch is sent: the line saying one was
            # submitted must not wait on an import.
            import judgekit._util.terminal_text  # noqa: F401
            from judgekit.judging.batch.options import BatchOptions

            batch = BatchOptions(poll_interval_s=poll_interval)
        return func(*args, batch=batch, **kwargs)

    return cast(F, command)


def print_batch_event(line: str) -> None:
    """A batch submitted, resumed or ended, on stderr; its id comes from the server."""
    from judgekit._util.terminal_text import visible  # loaded with --batch (see above)

    click.echo(visible(line, one_line=True), err=True)
