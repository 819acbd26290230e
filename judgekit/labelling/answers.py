"""Where the labeller's answers come from: keystrokes in a terminal, or lines on stdin.

In a terminal each key is read as it is typed (no Enter, no echo): on POSIX in raw mode,
restored to the terminal's own mode when the session ends, by an exception, or by SIGTERM
(output processing stays on, so rich draws as usual); on Windows from the console, through
click. Piped input gives one answer per line::

    printf 'p\\nf\\ns\\nq\\n' | judgekit label runs.jsonl --rubric goal_completion --labeler ana
"""

from __future__ import annotations

import sys
from typing import IO, Protocol

from judgekit.errors import ConfigError
from judgekit.labelling.terminal_answers import TerminalAnswers

__all__ = ["Answers", "LineAnswers", "TerminalAnswers", "answers_from_stdin"]


class Answers(Protocol):
    """A source of answers: ``key()`` the next keystroke (or piped answer), ``line()`` a line
    of text (a note); both return None when the input has ended."""

    def key(self) -> str | None: ...

    def line(self, prompt: str) -> str | None: ...


class LineAnswers:
    """One answer per line of a text stream; blank lines are ignored."""

    def __init__(self, stream: IO[str], first: str | None = None) -> None:
        self._stream = stream
        self._first = first

    def _next_line(self) -> str | None:
        if self._first is not None:
            line, self._first = self._first, None
            return line
        line = self._stream.readline()
        return line if line else None

    def key(self) -> str | None:
        while (line := self._next_line()) is not None:
            if line.strip():
                return line.strip()
        return None

    def line(self, prompt: str) -> str | None:
        line = self._next_line()
        return line.rstrip("\r\n") if line is not None else None


def answers_from_stdin() -> TerminalAnswers | LineAnswers:
    """Keystrokes when stdin is a terminal, else one answer per line; with no terminal and
    nothing on stdin, a :class:`ConfigError` saying how to run the command."""
    stream = sys.stdin
    if stream is not None and stream.isatty():
        # Each kind imports its platform's module (termios, msvcrt) only here, so the
        # command line starts on every platform.
        if sys.platform == "win32":
            from judgekit.labelling.console_keys import ConsoleKeyAnswers

            return ConsoleKeyAnswers()
        from judgekit.labelling.posix_terminal import PosixTerminalAnswers

        return PosixTerminalAnswers(stream.fileno())
    first = stream.readline() if stream is not None else ""
    if not first:
        raise ConfigError(
            "no terminal to label in and no answers on stdin; run `judgekit label` in a "
            "terminal, or pipe one answer per line (printf 'p\\nf\\nq\\n' | judgekit label ...)"
        )
    return LineAnswers(stream, first)
