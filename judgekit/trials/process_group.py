"""Run a command in its own process group, with a deadline that kills the whole group.

An agent is often a shell script that starts Python that starts tools: killing only the
process we started would leave its children running (and holding the output pipes open, so
reading them would never end). Each command therefore starts a new session, and the whole
group is killed when the command overruns its deadline, and again once it has ended, so
nothing it started outlives its trial. Its output is read as it comes, both pipes at once,
up to :data:`OUTPUT_MAX_BYTES` (stdout and stderr together): a command that prints more is
killed the same way (``cat /dev/zero`` would otherwise fill memory). POSIX only
(``os.killpg``).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

# After the kill, how long to wait for the last output: a process that left the group
# (setsid) may hold the pipes open forever.
_DRAIN_S = 2.0
OUTPUT_MAX_BYTES = 16 * 2**20
"""The most a command may print, stdout and stderr together, before its group is killed:
an agent's answer and the traceback of a crash are kilobytes; a verbose log is a few MiB."""
_READ_BYTES = 2**16


@dataclass(frozen=True)
class Finished:
    """How a command ended. ``exit_code`` is None when it never started, was killed at
    the deadline or was killed for printing more than ``max_output_bytes``
    (``output_overflowed``; its output is what it printed up to that bound)."""

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    duration_s: float
    start_error: str | None = None
    output_overflowed: bool = False

    @property
    def output(self) -> str:
        """stdout then stderr: a crash's traceback, the most useful part, comes last."""
        return self.stdout + self.stderr


def run_command(
    argv: list[str],
    *,
    cwd: Path,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
    max_output_bytes: int = OUTPUT_MAX_BYTES,
) -> Finished:
    """Run ``argv`` in ``cwd`` with stdin closed, capturing stdout and stderr.

    Never raises for the command's own failures: a command that cannot start, crashes,
    overruns or prints more than ``max_output_bytes`` is described by the returned
    :class:`Finished`.
    """
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=None if env is None else dict(env),
            stdin=subprocess.DEVNULL,  # an agent waiting for input would hang until the deadline
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return Finished(None, "", "", False, time.monotonic() - started, f"cannot start: {exc}")
    output = _BoundedOutput(process, max_output_bytes)
    with output:
        timed_out = not _ended(process, output, started + timeout_s)
        if timed_out:
            timed_out = process.poll() is None  # the leader itself still running, not a leftover
            _kill_group(process.pid)
            output.read_until(time.monotonic() + _DRAIN_S)  # what it wrote before the kill
        else:
            _kill_group(process.pid)  # background children, or a command that printed too much
    process.wait()
    killed = timed_out or output.overflowed
    return Finished(
        exit_code=None if killed else process.returncode,
        stdout=output.text(process.stdout),
        stderr=output.text(process.stderr),
        timed_out=timed_out,
        duration_s=time.monotonic() - started,
        output_overflowed=output.overflowed,
    )


def _ended(process: subprocess.Popen[bytes], output: _BoundedOutput, deadline: float) -> bool:
    """Read until the command has closed its output and exited, or printed too much (True);
    False at the deadline."""
    if not output.read_until(deadline):
        return False
    if output.overflowed:
        return True
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return False
    return True


class _BoundedOutput:
    """A command's stdout and stderr read as they come, both at once, up to a total."""

    def __init__(self, process: subprocess.Popen[bytes], max_bytes: int) -> None:
        self._selector = selectors.DefaultSelector()
        self._chunks: dict[IO[bytes] | None, list[bytes]] = {}
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                self._selector.register(pipe, selectors.EVENT_READ)
                self._chunks[pipe] = []
        self._room = max_bytes
        self.overflowed = False

    def read_until(self, deadline: float) -> bool:
        """Read until both pipes end (True), the total passes the bound (True, overflowed)
        or the deadline (False)."""
        while self._selector.get_map() and not self.overflowed:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            for key, _ in self._selector.select(remaining):
                self._read(key.fileobj)  # type: ignore[arg-type]
        return True

    def _read(self, pipe: IO[bytes]) -> None:
        data = os.read(pipe.fileno(), _READ_BYTES)
        if not data:
            self._selector.unregister(pipe)
            return
        if len(data) > self._room:
            data, self.overflowed = data[: self._room], True
        self._room -= len(data)
        self._chunks[pipe].append(data)

    def text(self, pipe: IO[bytes] | None) -> str:
        return b"".join(self._chunks.get(pipe, [])).decode("utf-8", errors="replace")

    def __enter__(self) -> _BoundedOutput:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Stop reading: a process that left the group (setsid) may hold the pipes open."""
        self._selector.close()
        for pipe in self._chunks:
            if pipe is not None:
                pipe.close()


def _kill_group(pgid: int) -> None:
    # ProcessLookupError: the group is already gone. PermissionError: a member changed its
    # user id; there is nothing more we may do about it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
