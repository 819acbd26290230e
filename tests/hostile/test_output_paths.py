"""Every writer respects what its output path is. Each ``-o FILE`` writer (export, import,
report, --save-baseline, monitor --plot) used to rename a temporary file over the path, so
``-o /dev/null`` replaced the device with a regular file (exit 0) and ``-o /dev/stdout``
replaced the link. Now a device or a FIFO is written in place (a full device is exit 2,
still a device), a socket is refused, a symbolic link is followed and kept, and an open
descriptor (``/dev/stdout``) is written through. An output that is one of the command's
inputs is refused before anything is written: ``import … -o`` equal to the transcript
replaced it with runs.

The devices and FIFOs are made in the test's folder: no test points judgekit at /dev.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from tests.conftest import REPO
from tests.exporters.world import files as export_files
from tests.processes import env

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
SHOP_TASKS = REPO / "tasks" / "shop.yaml"
RUBRIC = REPO / "rubrics" / "goal_completion.yaml"
LABELS = REPO / "labels" / "goal_completion.jsonl"
TRANSCRIPT = REPO / "examples" / "transcripts" / "shop_openai.jsonl"
NULL, FULL = os.makedev(1, 3), os.makedev(1, 7)
NO_SPACE = os.strerror(28)  # No space left on device
SOCKET = "it is a socket; an output is a file, a device or a FIFO"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    """The CLI in this process; any exception but the exit is a bug and fails the test."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def listing(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def device(path: Path, number: int) -> Path:
    """A character device at ``path`` (1,3 is a null device, 1,7 a full one)."""
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    os.mknod(path, stat.S_IFCHR | 0o666, number)
    return path


def is_device(path: Path, number: int) -> bool:
    found = os.lstat(path)
    return stat.S_ISCHR(found.st_mode) and found.st_rdev == number


@contextmanager
def fifo_read(path: Path) -> Iterator[list[bytes]]:
    """A FIFO at ``path`` and a thread reading it to the end; the bytes read are in the
    list once the block ends."""
    os.mkfifo(path)
    got: list[bytes] = []

    def read() -> None:
        with open(path, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        yield got
    finally:
        reader.join(timeout=1)
        if reader.is_alive():  # the writer may never have opened the FIFO: release the reader
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as exc:  # ENXIO: the reader has just closed it, done with its read
                if exc.errno != errno.ENXIO:
                    raise
        reader.join(timeout=30)


def socket_file(path: Path) -> Path:
    with socket.socket(socket.AF_UNIX) as bound:
        bound.bind(str(path))
    return path


# ---------------------------------------------------------------------- the writers


@dataclass(frozen=True)
class Writer:
    """A command writing one user-named output: its command line for an output path, and
    how its output is compared (a report names the time it was made)."""

    name: str
    args: Callable[[Path, Path], list[str | Path]]
    comparable: Callable[[bytes], bytes] = lambda data: data


def _graded(tmp: Path) -> Path:
    results = tmp / "graded" / "results.jsonl"
    if not results.exists():
        code, _, err = invoke(
            "grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", results.parent, "--no-store"
        )
        assert code == 0, err
    return results


def _export_args(tmp: Path, out: Path) -> list[str | Path]:
    verdicts = export_files(tmp)[0]
    return ["export", "verdicts", "--format", "csv", "--verdicts", verdicts, "-o", out]


def _baseline_args(tmp: Path, out: Path) -> list[str | Path]:
    folder = tmp / f"grade-{len(list(tmp.glob('grade-*')))}"  # a fresh --out each time
    return ["grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", folder, "--no-store",
            "--save-baseline", out]  # fmt: skip


WRITERS = [
    Writer("export", _export_args),
    Writer("import", lambda tmp, out: ["import", "openai", TRANSCRIPT, "-o", out]),
    Writer(
        "report",
        lambda tmp, out: ["report", "--results", _graded(tmp), "-o", out],
        lambda data: re.sub(rb"generated [0-9T:+-]+", b"generated T", data),
    ),
    Writer("grade --save-baseline", _baseline_args),
    Writer("monitor --plot", lambda tmp, out: ["monitor", "--plot", out]),
]
IDS = [writer.name for writer in WRITERS]


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's folder as the working folder (no rubrics/ or labels/ to read)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dev").mkdir()
    return tmp_path


def regular_output(writer: Writer, tmp: Path) -> bytes:
    """What ``writer`` writes to a regular file (a monitor's two figures, one after the
    other, as it writes them to a device)."""
    out = tmp / "regular" / "out.png"
    code, _, err = invoke(*writer.args(tmp, out))
    assert code == 0, err
    data = out.read_bytes()
    if writer.name == "monitor --plot":
        data += (out.parent / "out.cost_turns.png").read_bytes()
    return writer.comparable(data)


@pytest.mark.parametrize("writer", WRITERS, ids=IDS)
def test_a_null_device_is_written_in_place_and_stays_a_device(writer: Writer, work: Path) -> None:
    null = device(work / "dev" / "null", NULL)
    code, _, err = invoke(*writer.args(work, null))
    assert code == 0, err
    assert is_device(null, NULL)
    assert listing(work / "dev") == ["null"]  # no lock file, no temporary, no file beside it


@pytest.mark.parametrize("writer", WRITERS, ids=IDS)
def test_a_full_device_is_one_line_and_stays_a_device(writer: Writer, work: Path) -> None:
    full = device(work / "dev" / "full", FULL)
    code, _, err = invoke(*writer.args(work, full))
    assert (code, err) == (2, f"judgekit: error: cannot write {full}: {NO_SPACE}\n")
    assert is_device(full, FULL)
    assert listing(work / "dev") == ["full"]
    # The set's other files (grade's results) were never renamed into place: their folder,
    # made for them, is gone.
    assert list(work.glob("grade-*")) == []


@pytest.mark.parametrize("writer", WRITERS, ids=IDS)
def test_a_fifo_gets_the_whole_output_and_stays_a_fifo(writer: Writer, work: Path) -> None:
    expected = regular_output(writer, work)
    fifo = work / "dev" / "fifo"
    with fifo_read(fifo) as got:
        code, _, err = invoke(*writer.args(work, fifo))
    assert code == 0, err
    assert [writer.comparable(data) for data in got] == [expected]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert listing(work / "dev") == ["fifo"]


@pytest.mark.parametrize("writer", WRITERS, ids=IDS)
def test_a_socket_is_refused_and_left_a_socket(writer: Writer, work: Path) -> None:
    sock = socket_file(work / "dev" / "sock")
    code, _, err = invoke(*writer.args(work, sock))
    assert (code, err) == (2, f"judgekit: error: cannot write {sock}: {SOCKET}\n")
    assert stat.S_ISSOCK(os.lstat(sock).st_mode)
    assert listing(work / "dev") == ["sock"]


@pytest.mark.parametrize("writer", WRITERS[:4], ids=IDS[:4])
def test_a_symbolic_link_is_followed_and_kept(writer: Writer, work: Path) -> None:
    expected = regular_output(writer, work)
    (work / "files").mkdir()
    real = work / "files" / "real"
    real.write_text("old\n")
    link, dangling = work / "dev" / "link", work / "dev" / "dangling"
    link.symlink_to(real)
    dangling.symlink_to(work / "files" / "new")
    for path, target in ((link, real), (dangling, work / "files" / "new")):
        code, _, err = invoke(*writer.args(work, path))
        assert code == 0, err
        assert (path.is_symlink(), os.readlink(path)) == (True, str(target))
        assert writer.comparable(target.read_bytes()) == expected
    assert listing(work / "dev") == ["dangling", "link"]
    assert [name for name in listing(work / "files") if not name.startswith(".judgekit.")] == [
        "new",
        "real",
    ]


def test_a_link_that_loops_is_refused_not_replaced(work: Path) -> None:
    loop = work / "dev" / "loop"
    loop.symlink_to(loop.name)
    code, _, err = invoke("import", "openai", TRANSCRIPT, "-o", loop)
    assert (code, err) == (2, f"judgekit: error: cannot write {loop}: {os.strerror(40)}\n")
    assert (loop.is_symlink(), listing(work / "dev")) == (True, ["loop"])


# ------------------------------------------------- an open descriptor: /dev/stdout


def _import_through(link: Path, home: Path, stdout: int) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "judgekit", "import", "openai", str(TRANSCRIPT), "-o", str(link)],
        cwd=REPO, env=env(home), stdout=stdout, stderr=subprocess.PIPE, timeout=120, check=False,
    )  # fmt: skip


def test_a_link_to_the_standard_output_writes_to_it(tmp_path: Path) -> None:
    """``-o /dev/stdout`` replaced the link; here a link of the test's own leads there."""
    expected = regular_output(WRITERS[1], tmp_path)
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    done = _import_through(link, tmp_path / "home", subprocess.PIPE)
    assert (done.returncode, done.stdout) == (0, expected)
    assert (link.is_symlink(), os.readlink(link)) == (True, "/proc/self/fd/1")
    # A standard output the shell opened to append (>>) is appended to, not overwritten.
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"earlier\n")
    with log.open("ab") as appended:
        done = _import_through(link, tmp_path / "home", appended.fileno())
    assert (done.returncode, log.read_bytes()) == (0, b"earlier\n" + expected)
    assert listing(tmp_path) == ["log.jsonl", "regular", "stdout"]


# ------------------------------------------------------------ an output that is an input


def refused(output: Path, read: Path) -> str:
    return (
        f"judgekit: error: cannot write {output}: it is {read}, which this command reads "
        "(name another output file)\n"
    )


def test_import_onto_its_own_transcript_is_refused(work: Path) -> None:
    transcript = work / "chats.jsonl"
    shutil.copy(TRANSCRIPT, transcript)
    (work / "link.jsonl").symlink_to(transcript.name)
    for output in (transcript, work / "link.jsonl", work / "dev" / ".." / "chats.jsonl"):
        code, out, err = invoke("import", "openai", transcript, "-o", output)
        assert (code, out, err) == (2, "", refused(output, transcript))
    code, _, err = invoke(
        "import", "taubench", transcript, "-o", work / "runs.jsonl", "--suite-out", transcript
    )
    assert (code, err) == (2, refused(transcript, transcript))
    assert transcript.read_bytes() == TRANSCRIPT.read_bytes()
    assert listing(work) == ["chats.jsonl", "dev", "link.jsonl"]


def test_export_onto_what_it_reads_is_refused(work: Path) -> None:
    verdicts, runs = export_files(work)
    before = {path: path.read_bytes() for path in (verdicts, runs)}
    for read, args in (
        (verdicts, ["--verdicts", verdicts]),
        (runs, ["--verdicts", verdicts, "--runs", runs]),
    ):
        code, _, err = invoke("export", "verdicts", "--format", "csv", *args, "-o", read)
        assert (code, err) == (2, refused(read, read))
    labels = work / "labels.jsonl"
    shutil.copy(LABELS, labels)
    code, _, err = invoke(
        "export", "labels", "--rubric", RUBRIC, "--labels", labels, "--format", "csv", "-o", labels
    )
    assert (code, err) == (2, refused(labels, labels))
    assert labels.read_bytes() == LABELS.read_bytes()
    assert {path: path.read_bytes() for path in before} == before


def test_grade_and_judge_onto_the_runs_they_read_are_refused(work: Path) -> None:
    runs = work / "out" / "results.jsonl"
    runs.parent.mkdir()
    shutil.copy(SHOP_RUNS, runs)
    code, _, err = invoke("grade", runs, "--tasks", SHOP_TASKS, "--out", runs.parent, "--no-store")
    assert (code, err) == (2, refused(runs.parent / "results.jsonl", runs))
    code, _, err = invoke(
        "grade", runs, "--tasks", SHOP_TASKS, "--out", work / "g", "--save-baseline", runs
    )
    assert (code, err) == (2, refused(runs, runs))
    verdicts = runs.rename(work / "out" / "verdicts.jsonl")
    code, _, err = invoke(
        "judge", verdicts, "--rubric", RUBRIC, "--out", work / "out", "--model", "openai/m",
        "--base-url", "http://127.0.0.1:9/v1", "--no-store",
    )  # fmt: skip
    assert (code, err) == (2, refused(work / "out" / "verdicts.jsonl", verdicts))
    code, _, err = invoke(
        "run", "--tasks", verdicts, "--agent", "examples.shop:agent", "--save-baseline", verdicts
    )
    assert (code, err) == (2, refused(verdicts, verdicts))
    assert verdicts.read_bytes() == SHOP_RUNS.read_bytes()
    assert listing(work) == ["dev", "out"]
    assert listing(work / "out") == ["verdicts.jsonl"]


def test_report_and_monitor_onto_their_results_or_the_store_are_refused(work: Path) -> None:
    results = _graded(work)
    code, _, err = invoke("report", "--results", results, "-o", results)
    assert (code, err) == (2, refused(results, results))
    code, _, err = invoke("grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", work / "stored")
    assert code == 0, err
    database = work / ".judgekit" / "judgekit.sqlite"
    before = database.read_bytes()
    for args in (["report", "-o", database], ["monitor", "--plot", database]):
        code, _, err = invoke(*args)
        assert (code, err) == (2, refused(database, database))
    assert database.read_bytes() == before
