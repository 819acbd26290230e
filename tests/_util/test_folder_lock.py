"""One judgekit process at a time per output folder, with real processes contending."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from judgekit._util.folder_lock import LOCK_FILE, PID_FILE, output_folder_lock, parent_folder_lock
from judgekit.errors import FolderInUseError, JudgekitError, OutputError
from tests.conftest import REPO
from tests.processes import env, judgekit, listing, lock_held, read_only

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
SHOP_TASKS = REPO / "tasks" / "shop.yaml"

# Tries the lock once in its own process and prints what happened.
TRY_LOCK = """
import sys
from judgekit.errors import FolderInUseError
from judgekit._util.folder_lock import output_folder_lock
try:
    with output_folder_lock(sys.argv[1]):
        print("acquired")
except FolderInUseError as exc:
    print(f"{type(exc).__name__} pid={exc.pid} folder={exc.folder}")
    print(exc)
"""


def try_lock(folder: Path, home: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", TRY_LOCK, str(folder)],
        cwd=REPO,
        env=env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.splitlines()


def test_a_second_process_is_refused_at_once_naming_the_holder(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    with lock_held(folder, tmp_path / "home") as holder:
        assert (folder / PID_FILE).read_text() == f"{holder.pid}\n"
        assert try_lock(folder, tmp_path / "home") == [
            f"FolderInUseError pid={holder.pid} folder={folder}",
            f"{folder} is in use by another judgekit process (pid {holder.pid})",
        ]
    # released: the pid file goes, the (empty) lock file stays, and the next one gets it
    assert listing(folder) == [LOCK_FILE]
    assert try_lock(folder, tmp_path / "home") == ["acquired"]


def test_the_cli_says_so_in_one_line_and_exits_2(tmp_path: Path) -> None:
    out = tmp_path / "results"
    with lock_held(out, tmp_path / "home") as holder:
        done = judgekit(
            ["grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", out, "--no-store"],
            tmp_path / "home",
        )
        assert done.returncode == 2
        assert done.stderr == (
            f"judgekit: error: {out} is in use by another judgekit process (pid {holder.pid})\n"
        )
        assert done.stdout == ""
        assert listing(out) == [LOCK_FILE, PID_FILE]


def test_the_pid_is_unknown_when_the_holder_wrote_none(tmp_path: Path) -> None:
    """A holder whose pid file cannot be read (it is gone, or names no live process)."""
    folder = tmp_path / "out"
    with lock_held(folder, tmp_path / "home"):
        (folder / PID_FILE).write_text("not a pid\n")
        assert try_lock(folder, tmp_path / "home")[1] == (
            f"{folder} is in use by another judgekit process (pid unknown)"
        )
        (folder / PID_FILE).unlink()
        assert try_lock(folder, tmp_path / "home")[1] == (
            f"{folder} is in use by another judgekit process (pid unknown)"
        )


def test_a_killed_holder_leaves_the_folder_free(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    with lock_held(folder, tmp_path / "home") as holder:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=30)
        # its pid file is left behind, naming a process that is gone
        assert (folder / PID_FILE).read_text() == f"{holder.pid}\n"
        with output_folder_lock(folder):
            assert (folder / PID_FILE).read_text() == f"{os.getpid()}\n"
    assert listing(folder) == [LOCK_FILE]


def test_the_folder_and_its_parents_are_created(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b"
    with output_folder_lock(folder) as locked:
        assert locked == folder
        assert listing(folder) == [LOCK_FILE, PID_FILE]
        (folder / "results.jsonl").write_text("{}\n")
    assert listing(folder) == [LOCK_FILE, "results.jsonl"]


def test_a_failure_removes_the_folders_it_created_and_left_empty(tmp_path: Path) -> None:
    with pytest.raises(JudgekitError, match="bad input"), output_folder_lock(tmp_path / "a" / "b"):
        raise JudgekitError("bad input")
    assert listing(tmp_path) == []


def test_a_failure_keeps_a_folder_that_holds_files(tmp_path: Path) -> None:
    """Trials finished before an interruption are kept, and so is a folder that existed."""
    created = tmp_path / "new"
    with pytest.raises(KeyboardInterrupt), output_folder_lock(created):
        (created / "runs.jsonl").write_text("{}\n")
        raise KeyboardInterrupt
    assert listing(created) == [LOCK_FILE, "runs.jsonl"]
    existing = tmp_path / "existing"
    existing.mkdir()
    with pytest.raises(JudgekitError), output_folder_lock(existing):
        raise JudgekitError("bad input")
    assert listing(existing) == [LOCK_FILE]


def test_parent_folder_lock_locks_the_folder_of_a_file(tmp_path: Path) -> None:
    with parent_folder_lock(tmp_path / "plots" / "scores.png") as folder:
        assert folder == tmp_path / "plots"
        assert try_lock(folder, tmp_path / "home")[0].startswith("FolderInUseError")


def test_temporaries_left_by_killed_writers_are_swept(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    folder = tmp_path / "out"
    folder.mkdir()
    stale = folder / f".results.jsonl.{gone.pid}.k3j_x9a2.judgekit-tmp"
    live = folder / f".results.csv.{os.getpid()}.a8f2k1z0.judgekit-tmp"
    mine = folder / ".notes.txt.tmp"
    for path in (stale, live, mine):
        path.write_text("partial")
    with output_folder_lock(folder):
        assert listing(folder) == sorted([LOCK_FILE, PID_FILE, live.name, mine.name])


def test_a_folder_that_cannot_be_created_is_an_output_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError) as caught, output_folder_lock(tmp_path / "file" / "out"):
        pass
    assert (
        str(caught.value)
        == f"cannot create the folder {tmp_path / 'file' / 'out'}: Not a directory"
    )
    with pytest.raises(OutputError) as caught, output_folder_lock(tmp_path / "file"):
        pass
    assert (
        str(caught.value) == f"cannot create the folder {tmp_path / 'file'}: a file has that name"
    )
    assert not isinstance(caught.value, FolderInUseError)


def test_a_read_only_folder_is_an_output_error(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    with read_only(folder) as reason:
        with pytest.raises(OutputError) as caught, output_folder_lock(folder):
            pass
        assert str(caught.value) == f"cannot write in {folder}: {reason}"
        assert listing(folder) == []
