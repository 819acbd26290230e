"""Real processes for the tests of output files: judgekit's command line, a process holding
an output folder's lock, and a folder no process may write into."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import REPO

# Holds the folder's lock until a line arrives on stdin; says "locked" once it holds it.
HOLD_LOCK = """
import sys
from judgekit._util.folder_lock import output_folder_lock
with output_folder_lock(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.readline()
"""


def env(home: Path) -> dict[str, str]:
    """The environment of a judgekit process: its own JUDGEKIT_HOME, no store URL."""
    variables = {k: v for k, v in os.environ.items() if k != "JUDGEKIT_DB"}
    return {**variables, "JUDGEKIT_HOME": str(home), "PYTHONPATH": str(REPO)}


def judgekit(
    args: Sequence[str | Path],
    home: Path,
    *,
    timeout: float = 120,
    stdin: str = "",
    max_file_bytes: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m judgekit ARGS`` run in the repository, to the end; with
    ``max_file_bytes``, no file it writes may grow past that size (a write beyond it fails
    with EFBIG, as one on a full disk fails with ENOSPC)."""

    def limit_file_size() -> None:
        assert max_file_bytes is not None
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))

    return subprocess.run(
        [sys.executable, "-m", "judgekit", *map(str, args)],
        cwd=REPO,
        env=env(home),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        preexec_fn=None if max_file_bytes is None else limit_file_size,
    )


def start_judgekit(args: Sequence[str | Path], home: Path) -> subprocess.Popen[str]:
    """``python -m judgekit ARGS`` started in the background."""
    return subprocess.Popen(
        [sys.executable, "-m", "judgekit", *map(str, args)],
        cwd=REPO,
        env=env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@contextmanager
def lock_held(folder: Path, home: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding ``folder``'s lock for the block."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(folder)],
        cwd=REPO,
        env=env(home),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        yield holder
    finally:
        if holder.poll() is None:
            assert holder.stdin is not None
            holder.stdin.write("\n")
            holder.stdin.close()
        holder.wait(timeout=30)


@contextmanager
def read_only(folder: Path) -> Iterator[str]:
    """``folder`` made unwritable for the block (immutable when running as root, whom
    permissions do not stop); yields the reason the system gives for a refused write."""
    folder.mkdir(parents=True, exist_ok=True)
    root = os.geteuid() == 0
    if root:
        done = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"cannot make a folder read-only as root here: {done.stderr!r}")
    else:
        folder.chmod(0o555)
    try:
        try:
            (folder / "probe").open("x").close()
        except OSError as exc:
            reason = exc.strerror
        else:
            raise AssertionError(f"{folder} is still writable")
        yield reason
    finally:
        if root:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        else:
            folder.chmod(0o755)


def listing(folder: Path) -> list[str]:
    """The names in ``folder``, sorted (hidden ones too)."""
    return sorted(path.name for path in folder.iterdir())
