"""Keys from a POSIX terminal in raw mode: imported only when labelling in such a terminal,
since ``termios`` exists nowhere else (not on Windows)."""

from __future__ import annotations

import os
import signal
import sys
import termios
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from judgekit.labelling.terminal_answers import TerminalAnswers

__all__ = ["PosixTerminalAnswers"]

_QUIT_KEYS = {"\x03", "\x04"}  # Ctrl-C and Ctrl-D, which raw mode delivers as characters


class PosixTerminalAnswers(TerminalAnswers):
    """Single keystrokes from the terminal ``fd`` in raw mode; use inside :meth:`raw_mode`."""

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
            raise RuntimeError("PosixTerminalAnswers.line() is used inside raw_mode()")
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
