"""Resolving ``"module:name"`` references (custom matchers, tools, agents) to Python objects."""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType
from typing import Any

from judgekit._util.close_names import close_names, suggesting
from judgekit.errors import SpecError


class UnresolvedReference(SpecError):
    """A ``module:name`` reference cannot be resolved; the message says why."""


def split_reference(reference: str, *, what: str) -> tuple[str, str]:
    """``("module", "name")`` for ``"module:name"``, importing nothing; a reference of
    another form raises :class:`UnresolvedReference`."""
    module_name, sep, attribute = reference.partition(":")
    if not sep or not module_name or not attribute:
        raise UnresolvedReference(f"{what} must be 'module:name', got {reference!r}")
    return module_name, attribute


def resolve_reference(reference: str, *, what: str) -> Any:
    """The object ``name`` of module ``module`` for ``"module:name"``.

    ``what`` names the object in messages ("$custom", "tools", "agent"). The working
    directory is importable, as it is under ``python -m``: a console script does not put it
    on sys.path, yet users expect ``agents:mine`` to find agents.py beside them.

    >>> resolve_reference("json:dumps", what="agent").__name__
    'dumps'
    """
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        module_name, attribute = split_reference(reference, what=what)
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise UnresolvedReference(
                f"{what} cannot import module {module_name!r}: {exc}"
            ) from None
    except UnresolvedReference as exc:
        meant = _meant(reference)
        raise UnresolvedReference(f"{exc}; {suggesting([meant])}" if meant else str(exc)) from None
    if not hasattr(module, attribute):
        public = [name for name in dir(module) if not name.startswith("_")]
        close = suggesting(f"{module_name}:{name}" for name in close_names(attribute, public))
        message = f"{what}: module {module_name!r} has no {attribute!r}"
        raise UnresolvedReference(f"{message}; {close}" if close else message)
    return getattr(module, attribute)


def _meant(reference: str) -> str | None:
    """The ``module:name`` a reference of another form meant, when it resolves: a dot for
    the colon (``agent.agent``), or a file for the module (``agent.py:agent``,
    ``src/agent.py:agent``)."""
    module_name, sep, attribute = reference.strip().partition(":")
    if not sep:
        module_name, _, attribute = module_name.rpartition(".")
    module_name = module_name.removesuffix(".py").replace("/", ".").replace("\\", ".")
    candidate = f"{module_name.strip('.')}:{attribute}"
    return candidate if candidate != reference and _resolves(candidate) else None


def _resolves(reference: str) -> bool:
    """Whether ``module:name`` names an object of an importable module (not a module)."""
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        return False
    try:
        found = getattr(importlib.import_module(module_name), attribute, None)
    except Exception:  # the candidate is a guess: any failure to import it means no
        return False
    return found is not None and not isinstance(found, ModuleType)
