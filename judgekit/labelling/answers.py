"""Where the labeller's answers come from: keystrokes in a terminal, or lines on stdin.

In a terminal each key is read in raw mode (no Enter, no echo), restored to the
terminal's own mode when the session ends, by an exception, or by SIGTERM. Output
processing stays on, so rich draws as usual. Piped input gives one answer per line::

    printf 'p\\nf\\ns\\nq\\n' | judgekit label runs.jsonl --rubric goal_completion --labeler ana
"""

from __future__ import annotations

import os
import signal
import sys
import termios
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import IO, Any, Protocol

from judgekit.errors import ConfigError

__all__ = ["Answers", "LineAnswers", "TerminalAnswers", "answers_from_stdin"]

_QUIT_KEYS = {"\x03", "\x04"}  # Ctrl-C and Ctrl-D, which raw mode delivers as characters


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


class TerminalAnswers:
    """Single keystrokes from a terminal in raw mode; use inside :meth:`raw_mode`."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending: deque[str] = deque()
        self._saved: list[Any] | None = None

    @contextmanager
    def raw_mode(self) -> Iterator[TerminalAnswers]:
        """Keys arrive one at a time, unechoed, until the block ends (however it ends)."""
        saved = termios.tcgetattr(self._fd)
        self._saved = saved
        previous = signal.getsignal(signal.SIGTERM)

        def terminate(signum: int, frame: FrameType | None) -> None:
            # Unwind through the finally below, so the terminal is restored.
            raise SystemExit(128 + signum)

        signal.signal(signal.SIGTERM, terminate)
        try:
            self._set_raw()
            yield self
        finally:
            termios.tcsetattr(self._fd, termios.TCSADRAIN, saved)
            signal.signal(signal.SIGTERM, previous)
            self._saved = None

    def _set_raw(self) -> None:
        mode = termios.tcgetattr(self._fd)
        mode[0] &= ~(termios.BRKINT | termios.ICRNL | termios.INPCK | termios.ISTRIP | termios.IXON)
        mode[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN | termios.ISIG)
        cc = mode[6]
        cc[termios.VMIN] = 1
        cc[termios.VTIME] = 0
        # TCSANOW, not TCSAFLUSH: keys typed ahead are kept, not thrown away.
        termios.tcsetattr(self._fd, termios.TCSANOW, mode)

    def key(self) -> str | None:
        while not self._pending:
            try:
                data = os.read(self._fd, 64)
            except OSError:
                return None
            if not data:
                return None
            text = data.decode("utf-8", errors="replace")
            if text.startswith("\x1b"):
                continue  # an arrow or function key: not an answer
            self._pending.extend(text)
        key = self._pending.popleft()
        return "q" if key in _QUIT_KEYS else key

    def line(self, prompt: str) -> str | None:
        """A line typed with the terminal's own editing and echo (for a note)."""
        if self._saved is None:
            raise RuntimeError("TerminalAnswers.line() is used inside raw_mode()")
        sys.stdout.write(prompt)
        sys.stdout.flush()
        termios.tcsetattr(self._fd, termios.TCSANOW, self._saved)
        try:
            typed = "".join(self._pending)
            self._pending.clear()
            while not typed.endswith("\n"):
                data = os.read(self._fd, 1024)
                if not data:
                    return typed or None
                typed += data.decode("utf-8", errors="replace")
            return typed.rstrip("\r\n")
        finally:
            self._set_raw()


def answers_from_stdin() -> TerminalAnswers | LineAnswers:
    """Keystrokes when stdin is a terminal, else one answer per line; with no terminal and
    nothing on stdin, a :class:`ConfigError` saying how to run the command."""
    stream = sys.stdin
    if stream is not None and stream.isatty():
        return TerminalAnswers(stream.fileno())
    first = stream.readline() if stream is not None else ""
    if not first:
        raise ConfigError(
            "no terminal to label in and no answers on stdin; run `judgekit label` in a "
            "terminal, or pipe one answer per line (printf 'p\\nf\\nq\\n' | judgekit label ...)"
        )
    return LineAnswers(stream, first)
