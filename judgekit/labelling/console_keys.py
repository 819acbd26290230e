"""Keys from a console without termios (Windows): each read by ``click.getchar``, which
uses ``msvcrt`` there, so nothing POSIX-only is imported."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from judgekit.labelling.terminal_answers import TerminalAnswers

__all__ = ["ConsoleKeyAnswers"]

GetChar = Callable[[], str]
ReadLine = Callable[[], str]

# Ctrl-C, Ctrl-D and Ctrl-Z (the console's end of input) quit, as in a POSIX terminal.
_QUIT_KEYS = {"\x03", "\x04", "\x1a"}
# msvcrt announces an arrow or function key with one of these, then sends its code.
_SPECIAL_KEY_PREFIXES = ("\x00", "\xe0", "\x1b")


def _click_getchar() -> str:
    import click

    return click.getchar(echo=False)


class ConsoleKeyAnswers(TerminalAnswers):
    """Single keystrokes from ``getchar`` (click's by default); a note is a line of
    ``readline`` (stdin's by default), typed with the console's own echo."""

    def __init__(self, getchar: GetChar = _click_getchar, readline: ReadLine | None = None) -> None:
        self._getchar = getchar
        self._readline = readline

    @contextmanager
    def raw_mode(self) -> Iterator[TerminalAnswers]:
        # Each getchar reads one key unechoed on its own: there is no mode to set or restore.
        yield self

    def key(self) -> str | None:
        while True:
            try:
                typed = self._getchar()
            except (KeyboardInterrupt, EOFError):
                return "q"  # click turns Ctrl-C and end of input into these
            if not typed:
                return None
            if typed.startswith(_SPECIAL_KEY_PREFIXES):
                continue  # an arrow or function key: not an answer
            return "q" if typed[0] in _QUIT_KEYS else typed[0]

    def line(self, prompt: str) -> str | None:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        readline = self._readline or sys.stdin.readline
        typed = readline()
        return typed.rstrip("\r\n") if typed else None
