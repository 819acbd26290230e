"""Run a command in its own process group, with a deadline that kills the whole group.

An agent is often a shell script that starts Python that starts tools: killing only the
process we started would leave its children running (and holding the output pipes open, so
reading them would never end). Each command therefore starts a new session, and the whole
group is killed when the command overruns its deadline, and again once it has ended, so
nothing it started outlives its trial. POSIX only (``os.killpg``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# After the kill, how long to wait for the last output: a process that left the group
# (setsid) may hold the pipes open forever.
_DRAIN_S = 2.0


@dataclass(frozen=True)
class Finished:
    """How a command ended. ``exit_code`` is None when it never started or was killed at
    the deadline."""

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    duration_s: float
    start_error: str | None = None

    @property
    def output(self) -> str:
        """stdout then stderr: a crash's traceback, the most useful part, comes last."""
        return self.stdout + self.stderr


def run_command(
    argv: list[str], *, cwd: Path, timeout_s: float, env: Mapping[str, str] | None = None
) -> Finished:
    """Run ``argv`` in ``cwd`` with stdin closed, capturing stdout and stderr.

    Never raises for the command's own failures: a command that cannot start, crashes or
    overruns is described by the returned :class:`Finished`.
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
    timed_out = False
    out: bytes | None
    err: bytes | None
    try:
        out, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = process.poll() is None  # the leader itself still running, not a leftover
        _kill_group(process.pid)
        out, err = _drain(process)
    else:
        _kill_group(process.pid)  # background children the command left behind
    duration = time.monotonic() - started
    return Finished(
        exit_code=None if timed_out else process.returncode,
        stdout=_text(out),
        stderr=_text(err),
        timed_out=timed_out,
        duration_s=duration,
    )


def _kill_group(pgid: int) -> None:
    # ProcessLookupError: the group is already gone. PermissionError: a member changed its
    # user id; there is nothing more we may do about it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _drain(process: subprocess.Popen[bytes]) -> tuple[bytes | None, bytes | None]:
    """The output written before the kill, without waiting for ever on an escaped process."""
    try:
        return process.communicate(timeout=_DRAIN_S)
    except subprocess.TimeoutExpired as exc:
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
        process.wait()
        return _bytes_or_none(exc.output), _bytes_or_none(exc.stderr)


def _bytes_or_none(data: object) -> bytes | None:
    return data if isinstance(data, bytes) else None


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")
