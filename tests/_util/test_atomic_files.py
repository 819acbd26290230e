"""Files written whole or not at all, with the permissions a plain open() gives."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgekit._util.atomic_files import atomic_writer, write_bytes_atomically


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_a_text_file_gets_the_usual_permissions(tmp_path: Path, umask_022: None) -> None:
    with atomic_writer(tmp_path / "report.html") as fh:
        fh.write("<p>ok</p>")
    assert stat.S_IMODE((tmp_path / "report.html").stat().st_mode) == 0o644
    assert (tmp_path / "report.html").read_text() == "<p>ok</p>"


def test_a_binary_file_gets_the_usual_permissions(tmp_path: Path, umask_022: None) -> None:
    write_bytes_atomically(tmp_path / "plot.png", b"\x89PNG")
    assert stat.S_IMODE((tmp_path / "plot.png").stat().st_mode) == 0o644
    assert (tmp_path / "plot.png").read_bytes() == b"\x89PNG"


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path: Path) -> None:
    target = tmp_path / "results.jsonl"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_writer(target) as fh:
        fh.write("half")
        raise RuntimeError("crash")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.jsonl"]
