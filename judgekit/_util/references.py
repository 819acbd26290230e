"""Resolving ``"module:name"`` references (custom matchers, tools, agents) to Python objects."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

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
    module_name, attribute = split_reference(reference, what=what)
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UnresolvedReference(f"{what} cannot import module {module_name!r}: {exc}") from None
    if not hasattr(module, attribute):
        raise UnresolvedReference(f"{what}: module {module_name!r} has no {attribute!r}")
    return getattr(module, attribute)
