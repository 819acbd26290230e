"""The agent a ``module:function`` reference names, for the option or argument that gave it."""

from __future__ import annotations

from judgekit._util.references import UnresolvedReference, resolve_reference
from judgekit.errors import ConfigError
from judgekit.trials.in_process import Agent

__all__ = ["load_agent"]


def load_agent(reference: str, *, what: str) -> Agent:
    """The agent function; errors name ``what`` (the pytest option, not the CLI's --agent)."""
    try:
        agent = resolve_reference(reference, what=what)
    except UnresolvedReference as exc:
        raise ConfigError(str(exc)) from None
    if not callable(agent):
        raise ConfigError(f"{what} {reference!r} is not a function agent(task, world) -> str")
    return agent  # type: ignore[no-any-return]
