"""What a terminal that gives single keystrokes offers the labelling session, whatever the
platform underneath."""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager

__all__ = ["TerminalAnswers"]


class TerminalAnswers(ABC):
    """Single keystrokes from a terminal; use inside :meth:`raw_mode`. The POSIX kind
    (:mod:`judgekit.labelling.posix_terminal`) and the console kind for Windows
    (:mod:`judgekit.labelling.console_keys`) are chosen by :func:`answers_from_stdin`."""

    @abstractmethod
    def raw_mode(self) -> AbstractContextManager[TerminalAnswers]:
        """Keys arrive one at a time, unechoed, until the block ends (however it ends)."""

    @abstractmethod
    def key(self) -> str | None:
        """The next key; Ctrl-C and Ctrl-D read as ``q``; None when the input has ended."""

    @abstractmethod
    def line(self, prompt: str) -> str | None:
        """A line typed with echo and the terminal's own editing (for a note)."""
