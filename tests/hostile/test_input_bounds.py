"""Every file judgekit reads is a regular file (or a link to one), and an archive's members
are read within a bound: a FIFO given as input used to wait for a writer for ever, a link
to ``/dev/zero`` was read until MemoryError, and so was an Inspect ``.eval`` log of 3 MB
whose member inflates to 3 GiB. Each is now one line, exit 2, nothing written.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import struct
import subprocess
import sys
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.errors import DataError
from judgekit.importers.inspect_log import import_inspect
from tests.conftest import REPO
from tests.processes import env, listing

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
SHOP_TASKS = REPO / "tasks" / "shop.yaml"
RUBRIC = REPO / "rubrics" / "goal_completion.yaml"
LABELS = REPO / "labels" / "goal_completion.jsonl"
NO_KEY = ["--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1", "--no-store"]
# What a reader may take in memory or time beyond what the test process holds already;
# reading /dev/zero, or waiting on a FIFO, meets one of them within seconds.
MEMORY_HEADROOM = 1 << 30
SECONDS = 10


@contextmanager
def bounded() -> Iterator[None]:
    """A block that raises MemoryError past :data:`MEMORY_HEADROOM` more address space,
    and TimeoutError past :data:`SECONDS`, rather than hanging or swapping the machine."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"still reading after {SECONDS} s")

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (_address_space() + MEMORY_HEADROOM, hard))
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        size = next(line for line in fh if line.startswith("VmSize:"))
    return int(size.split()[1]) * 1024


def invoke(*args: str | Path) -> tuple[int, str, str]:
    """The CLI in this process, bounded; any exception but the exit fails the test."""
    with bounded():
        result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def fifo(path: Path) -> Path:
    """A FIFO nothing writes to: opening it to read waits for a writer."""
    os.mkfifo(path)
    return path


def zeros(path: Path) -> Path:
    """A symbolic link to /dev/zero: bytes without end (read only, never written)."""
    path.symlink_to("/dev/zero")
    return path


KINDS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "a FIFO": (fifo, "not a regular file (a FIFO)"),
    "a link to /dev/zero": (zeros, "not a regular file (a character device)"),
}

# (command line, the path the message names) with the special file made by ``make``.
Case = Callable[[Callable[[Path], Path], Path, Path], tuple[list[str | Path], Path]]


def _in_out(args: list[str | Path], named: Path) -> tuple[list[str | Path], Path]:
    return args, named


CASES: dict[str, Case] = {
    "import openai FILE": lambda make, tmp, out: _in_out(
        ["import", "openai", make(tmp / "t.jsonl"), "-o", out / "runs.jsonl"], tmp / "t.jsonl"
    ),
    "import inspect FILE.eval": lambda make, tmp, out: _in_out(
        ["import", "inspect", make(tmp / "log.eval"), "-o", out / "runs.jsonl"], tmp / "log.eval"
    ),
    "import inspect FILE.json.gz": lambda make, tmp, out: _in_out(
        ["import", "inspect", make(tmp / "l.json.gz"), "-o", out / "runs.jsonl"], tmp / "l.json.gz"
    ),
    "grade RUNS": lambda make, tmp, out: _in_out(
        ["grade", make(tmp / "runs.jsonl"), "--tasks", SHOP_TASKS, "--out", out, "--no-store"],
        tmp / "runs.jsonl",
    ),
    "grade --tasks FILE": lambda make, tmp, out: _in_out(
        ["grade", SHOP_RUNS, "--tasks", make(tmp / "t.yaml"), "--out", out, "--no-store"],
        tmp / "t.yaml",
    ),
    "run --tasks FILE": lambda make, tmp, out: _in_out(
        ["run", "--tasks", make(tmp / "t.yaml"), "--agent", "examples.shop:agent", "--out", out],
        tmp / "t.yaml",
    ),
    "judge --rubric": lambda make, tmp, out: _in_out(
        ["judge", SHOP_RUNS, "--rubric", make(tmp / "r.yaml"), "--out", out, *NO_KEY],
        tmp / "r.yaml",
    ),
    "label RUNS": lambda make, tmp, out: _in_out(
        [
            "label",
            make(tmp / "runs.jsonl"),
            "--rubric",
            RUBRIC,
            "--labeler",
            "ana",
            "--labels-dir",
            out,
        ],
        tmp / "runs.jsonl",
    ),
    "labels: the labels file": lambda make, tmp, out: _in_out(
        ["labels", "--rubric", RUBRIC, "--labels-dir", tmp],
        make(tmp / "goal_completion.jsonl"),
    ),
    "calibrate --labels": lambda make, tmp, out: _in_out(
        [
            "calibrate",
            "--rubric",
            RUBRIC,
            "--labels",
            make(tmp / "l.jsonl"),
            "--no-store",
            "--plot",
            out / "c.png",
        ],
        tmp / "l.jsonl",
    ),
    "calibrate --verdicts": lambda make, tmp, out: _in_out(
        [
            "calibrate",
            "--rubric",
            RUBRIC,
            "--labels",
            LABELS,
            "--no-store",
            "--verdicts",
            make(tmp / "v.jsonl"),
            "--plot",
            out / "c.png",
        ],
        tmp / "v.jsonl",
    ),
    "report --results": lambda make, tmp, out: _in_out(
        ["report", "--results", make(tmp / "results.jsonl"), "-o", out / "r.html"],
        tmp / "results.jsonl",
    ),
    "store import": lambda make, tmp, out: _in_out(
        ["store", "import", make(tmp / "runs.jsonl")], tmp / "runs.jsonl"
    ),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", CASES)
def test_an_input_that_is_not_a_regular_file_is_one_line(
    tmp_path: Path, case: str, kind: str
) -> None:
    inputs, out = tmp_path / "in", tmp_path / "out"
    inputs.mkdir()
    make, reason = KINDS[kind]
    args, named = CASES[case](make, inputs, out)
    before = listing(tmp_path), listing(inputs)
    assert invoke(*args) == (2, "", f"judgekit: error: {named}: {reason}\n")
    assert (listing(tmp_path), listing(inputs)) == before  # no output folder, file or store


@pytest.mark.parametrize("kind", KINDS)
def test_an_earlier_output_that_is_not_a_regular_file_is_named(tmp_path: Path, kind: str) -> None:
    """run and judge read the runs.jsonl or verdicts.jsonl already in --out to resume it."""
    make, reason = KINDS[kind]
    runs_out, verdicts_out = tmp_path / "run", tmp_path / "judge"
    runs_out.mkdir()
    verdicts_out.mkdir()
    runs, verdicts = make(runs_out / "runs.jsonl"), make(verdicts_out / "verdicts.jsonl")
    code, _, err = invoke(
        "run", "--tasks", SHOP_TASKS, "--agent", "examples.shop:agent", "--out", runs_out,
        "--no-store", "--json", "--resume",
    )  # fmt: skip
    assert (code, err) == (2, f"judgekit: error: {runs}: {reason}\n")
    code, _, err = invoke("judge", SHOP_RUNS, "--rubric", RUBRIC, "--out", verdicts_out, *NO_KEY)
    assert (code, err) == (2, f"judgekit: error: {verdicts}: {reason}\n")
    assert listing(runs_out) == [".judgekit.lock", "runs.jsonl"]
    assert listing(verdicts_out) == [".judgekit.lock", "verdicts.jsonl"]


def test_a_link_to_a_regular_file_is_read_as_the_file(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.symlink_to(SHOP_RUNS)
    code, _, err = invoke("grade", runs, "--tasks", SHOP_TASKS, "--out", tmp_path / "out",
                          "--no-store")  # fmt: skip
    assert (code, err) == (0, "")
    assert (tmp_path / "out" / "results.jsonl").stat().st_size > 0


# ------------------------------------------------------------ an Inspect .eval zip bomb

GIB = 2**30
HEADER = json.dumps({"version": 2, "status": "success", "eval": {"task": "t"}}).encode()
SAMPLE = json.dumps({"id": "s1", "epoch": 1, "messages": []}).encode()


def _zeros_deflated(size: int) -> bytes:
    """A raw deflate stream of ``size`` zero bytes (a whole number of MiB), built from one
    MiB compressed once: after a sync flush the window holds only zeros, so the same
    compressed MiB follows itself. 3 GiB is 3.2 MB, made in a blink."""
    mib = bytes(2**20)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = packer.compress(mib) + packer.flush(zlib.Z_SYNC_FLUSH)
    again = packer.compress(mib) + packer.flush(zlib.Z_SYNC_FLUSH)
    return first + again * (size // 2**20 - 1) + packer.flush(zlib.Z_FINISH)


Member = tuple[str, bytes, int, int]  # name, deflated bytes, stated size, stated CRC-32


def _eval_log(path: Path, members: list[Member]) -> Path:
    """A .eval zip written byte by byte, each member with the size and CRC its headers
    state, true or not (zipfile cannot write a member that lies)."""
    body, directory = b"", b""
    for name, deflated, stated, crc in members:
        encoded = name.encode()
        sizes = (crc, len(deflated), stated, len(encoded))
        local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 33, *sizes, 0)
        directory += struct.pack(
            "<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 33, *sizes, 0, 0, 0, 0, 0, len(body)
        )
        directory += encoded
        body += local + encoded + deflated
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(directory), len(body), 0
    )
    path.write_bytes(body + directory + end)
    return path


def _deflated(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def _honest(name: str, data: bytes) -> Member:
    return name, _deflated(data), len(data), zlib.crc32(data)


def test_an_eval_log_built_here_reads_as_zipfile_and_judgekit_read_it() -> None:
    """The hand-built zip is a real one: zipfile and the importer read its members."""
    path = _eval_log(
        Path(os.environ["JUDGEKIT_HOME"]).parent / "ok.eval",
        [_honest("header.json", HEADER), _honest("samples/s1_epoch_1.json", SAMPLE)],
    )
    with zipfile.ZipFile(path) as archive:
        assert archive.read("samples/s1_epoch_1.json") == SAMPLE
    assert [run.run_id for run in import_inspect(path)] == ["t/s1/1"]


@pytest.mark.parametrize("member", ["header.json", "samples/s2_epoch_1.json"])
def test_an_eval_member_that_holds_3_gib_is_refused_unread(tmp_path: Path, member: str) -> None:
    """A 3.2 MB log whose header or second sample inflates to 3 GiB of zeros was read until
    MemoryError; its stated size is now refused before a byte is inflated."""
    bomb = (member, _zeros_deflated(3 * GIB), 3 * GIB, 0)
    members = [_honest("header.json", HEADER), _honest("samples/s1_epoch_1.json", SAMPLE), bomb]
    if member == "header.json":
        members = [bomb, members[1]]
    log = _eval_log(tmp_path / "bomb.eval", members)
    assert log.stat().st_size < 4_000_000
    out = tmp_path / "out"
    code, stdout, stderr = invoke("import", "inspect", log, "-o", out / "runs.jsonl")
    assert (code, stdout) == (2, "")
    assert stderr == (
        f"judgekit: error: {log}: {member}: holds 3,221,225,472 bytes, more than the 256 MiB "
        "a member of a .eval log may hold\n"
    )
    assert not out.exists()  # the first sample's run is not written alone


def test_an_eval_member_that_lies_about_its_size_is_inflated_only_so_far(tmp_path: Path) -> None:
    """A member stating 1,000 bytes whose data inflates to 3 GiB: zipfile's read of it
    inflated up to 2 GiB in one call before cutting it to the stated size. Read a MiB at a
    time, a judgekit process stays far below that, and reads what was stated."""
    bomb = ("samples/s1_epoch_1.json", _zeros_deflated(3 * GIB), 1000, zlib.crc32(bytes(1000)))
    log = _eval_log(tmp_path / "liar.eval", [_honest("header.json", HEADER), bomb])
    out = tmp_path / "out"
    measure = (
        "import resource, subprocess, sys; "
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
        "print(done.stderr, end='')"
    )
    command = [sys.executable, "-c", measure, sys.executable, "-m", "judgekit"]
    started = time.monotonic()
    done = subprocess.run(
        [*command, "import", "inspect", str(log), "-o", str(out / "runs.jsonl")],
        cwd=REPO, env=env(tmp_path / "home"), capture_output=True, text=True, timeout=120,
        check=True,
    )  # fmt: skip
    seconds = time.monotonic() - started
    first, message = done.stdout.split("\n", 1)
    code, peak_kib = map(int, first.split())
    assert (code, message) == (
        2,
        f"judgekit: error: {log}: samples/s1_epoch_1.json: malformed JSON: Expecting value: "
        "line 1 column 1 (char 0)\n",  # the 1,000 zeros it states, and not one more
    )
    assert peak_kib < 200 * 1024, f"peak RSS {peak_kib:,} KiB"
    assert seconds < 30
    assert not out.exists()


def test_a_member_past_a_smaller_limit_is_refused(tmp_path: Path) -> None:
    """``member_max_bytes`` bounds each member; 1 MiB and one byte is past 1 MiB."""
    log = _eval_log(
        tmp_path / "log.eval",
        [_honest("header.json", HEADER), _honest("samples/s1_epoch_1.json", bytes(2**20 + 1))],
    )
    with pytest.raises(DataError) as caught:
        list(import_inspect(log, member_max_bytes=2**20))
    assert str(caught.value) == (
        f"{log}: samples/s1_epoch_1.json: holds 1,048,577 bytes, more than the 1 MiB a member "
        "of a .eval log may hold"
    )
