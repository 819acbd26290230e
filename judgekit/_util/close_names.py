""" "Did you mean": the names close to a mistyped one, by the rule click suggests commands and
options with (difflib's closest three at a ratio of 0.6), in its wording, so every
suggestion judgekit makes (a task field, a model, an ``--agent``'s attribute) reads alike.
A mistyped command or option is click's own (judgekit's group hands it every command).

>>> close_names("forbid_tool", ["forbid_tools", "allow_tools", "order"])
['forbid_tools']
>>> did_you_mean("max_cals", ["max_calls", "max_turns"])
"did you mean 'max_calls'?"
>>> did_you_mean("stpe", ["step", "stop"])
"did you mean one of 'stop', 'step'?"
>>> did_you_mean("zzz", ["step"])
''
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["close_names", "did_you_mean", "suggesting"]

SHOWN = 3
CUTOFF = 0.6


def close_names(name: str, names: Iterable[str]) -> list[str]:
    """The names of ``names`` close to ``name``, closest first (at most three)."""
    return difflib.get_close_matches(name, list(names), n=SHOWN, cutoff=CUTOFF)


def suggesting(found: Iterable[str]) -> str:
    """``did you mean 'a'?`` for the names given (in the order given), or "" for none."""
    names = [repr(name) for name in found]
    if not names:
        return ""
    return f"did you mean {'one of ' if len(names) > 1 else ''}{', '.join(names)}?"


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """``did you mean 'a'?`` naming the names close to ``name``, or "" when none is."""
    return suggesting(close_names(name, names))
