"""Every file judgekit reads is a regular file (or a link to one), and an archive's members
are read within a bound: a FIFO given as input used to wait for a writer for ever, a link
to ``/dev/zero`` was read until MemoryError, and so was an Inspect ``.eval`` log of 3 MB
whose member inflates to 3 GiB. Each is now one line, exit 2, nothing written.
"""

from __future__ import annotations

import os
import resource
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from tests.conftest import REPO
from tests.processes import listing

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
