"""The store options commands share: whether to record, and what to say about the batch."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

if TYPE_CHECKING:
    from judgekit.store.provenance import Provenance

F = TypeVar("F", bound=Callable[..., Any])

no_store_option = click.option("--no-store", is_flag=True, help="Do not record in the store.")


@dataclass(frozen=True)
class StoreChoice:
    """Whether a command records in the store, and what it says about the batch."""

    enabled: bool = True
    tags: dict[str, str] = field(default_factory=dict)
    agent_version: str | None = None
    branch: str | None = None

    def provenance(self, extra_tags: dict[str, str] | None = None) -> Provenance:
        """The batch's provenance: these options (and the command's ``extra_tags``), then
        CI variables and git."""
        # Imported here: the store package loads SQLAlchemy, which --no-store never needs.
        from judgekit.store.provenance import detect_provenance

        tags = {**self.tags, **(extra_tags or {})}
        return detect_provenance(agent_version=self.agent_version, tags=tags, branch=self.branch)


def _parse_tags(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> dict[str, str]:
    tags: dict[str, str] = {}
    for value in values:
        key, equals, text = value.partition("=")
        if not equals or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {value!r}", ctx=ctx, param=param)
        tags[key.strip()] = text
    return tags


_provenance_options = [
    click.option(
        "--tag",
        "tags",
        multiple=True,
        metavar="KEY=VALUE",
        callback=_parse_tags,
        help="A tag recorded with the batch, e.g. --tag model=gpt-4o (repeatable).",
    ),
    click.option(
        "--agent-version",
        help="The agent's version, recorded with the batch (default: $JUDGEKIT_AGENT_VERSION).",
    ),
    click.option(
        "--branch",
        help="The branch recorded with the batch (default: from CI variables or git).",
    ),
]


def store_options(func: F) -> F:
    """``--no-store``, ``--tag``, ``--agent-version`` and ``--branch``, handed to the command
    as one ``store: StoreChoice`` argument."""
    return _with_store_choice(func, [no_store_option, *_provenance_options])


def provenance_options(func: F) -> F:
    """``--tag``, ``--agent-version`` and ``--branch`` for a command that always records,
    handed to it as ``store: StoreChoice``."""
    return _with_store_choice(func, _provenance_options)


def _with_store_choice(func: F, options: Sequence[Callable[[Any], Any]]) -> F:
    @functools.wraps(func)
    def command(
        *args: Any,
        tags: dict[str, str],
        agent_version: str | None,
        branch: str | None,
        no_store: bool = False,
        **kwargs: Any,
    ) -> Any:
        choice = StoreChoice(
            enabled=not no_store, tags=tags, agent_version=agent_version, branch=branch
        )
        return func(*args, store=choice, **kwargs)

    wrapped: Any = command
    for option in reversed(options):
        wrapped = option(wrapped)
    return cast(F, wrapped)
