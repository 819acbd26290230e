"""``--suite``, ``--branch``, ``--tag KEY=VALUE`` and ``--agent-version``: which recorded runs
``monitor``, ``report`` and ``gate`` look at, defined once and handed to the command as one
``only: RunFilter`` argument."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

import click

from judgekit.store.run_filter import RunFilter

F = TypeVar("F", bound=Callable[..., Any])


def _tag(_context: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> Any:
    pairs = []
    for text in values:
        key, equals, value = text.partition("=")
        if not equals or not key:
            raise click.BadParameter(f"{text!r} is not KEY=VALUE (e.g. --tag model=gpt-4o)")
        pairs.append((key, value))
    return tuple(pairs)


def filter_options(*, runs: str, batches: str) -> Callable[[F], F]:
    """The four options; ``runs`` and ``batches`` say what the suite and the batch filters
    narrow ("the series"; the gate: "both sides", "the baseline")."""
    what = batches
    options = [
        click.option(
            "--suite",
            help=f"Only this suite's runs (run ids SUITE/TASK/TRIAL) in {runs}.",
        ),
        click.option(
            "--branch",
            "filter_branch",
            help=f"Only batches of this git branch (e.g. main) in {what}.",
        ),
        click.option(
            "--tag",
            "tags",
            multiple=True,
            metavar="KEY=VALUE",
            callback=_tag,
            help=f"Only batches with this tag in {what}; repeatable, all must match.",
        ),
        click.option(
            "--agent-version",
            "filter_agent_version",
            help=f"Only batches of this agent version in {what}.",
        ),
    ]

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def command(
            *args: Any,
            suite: str | None,
            filter_branch: str | None,
            tags: tuple[tuple[str, str], ...],
            filter_agent_version: str | None,
            **kwargs: Any,
        ) -> Any:
            only = RunFilter(suite, filter_branch, tags, filter_agent_version)
            return func(*args, only=only, **kwargs)

        wrapped: Any = command
        for option in reversed(options):
            wrapped = option(wrapped)
        return cast(F, wrapped)

    return decorate
