"""verdicts.jsonl: each verdict is flushed as it is appended (a killed judge loses none that
finished) and the file fsynced at most every half second and on close."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from judgekit.formats.verdict import Verdict
from judgekit.judging import verdicts_file
from judgekit.judging.verdicts_file import VerdictsFile


def verdict(i: int) -> Verdict:
    return Verdict(
        run_id=f"r{i}",
        rubric_id="goal_completion",
        rubric_version="v1",
        model="openai/gpt-4o-mini",
        status="scored",
        score="pass",
        reason="ok",
        at=datetime(2026, 1, 1, tzinfo=UTC),
    )


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        calls.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(verdicts_file.os, "fsync", counting_fsync)
    return calls


def test_each_line_is_flushed_at_once_and_fsynced_on_close(
    tmp_path: Path, fsyncs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verdicts_file.time, "monotonic", lambda: 100.0)  # all within 0.5 s
    ids = [f"r{i}" for i in range(200)]
    with VerdictsFile(
        tmp_path, rubric_version="v1", model="openai/gpt-4o-mini", run_ids=ids
    ) as out:
        for i in range(200):
            out.append(verdict(i))
            if i == 0:
                opened = len(fsyncs)  # the first append's atomic rewrite fsyncs
            # Another reader (a rerun after kill -9) sees the line already.
            lines = (tmp_path / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()
            assert len(lines) == i + 1
            assert lines[-1] == verdict(i).model_dump_json()
        assert len(fsyncs) == opened  # not one fsync per line
        out.finish()
    assert len(fsyncs) == opened + 1  # one on close


def test_an_append_half_a_second_after_the_last_fsync_is_fsynced(
    tmp_path: Path, fsyncs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [100.0]
    monkeypatch.setattr(verdicts_file.time, "monotonic", lambda: clock[0])
    with VerdictsFile(tmp_path, rubric_version="v1", model="m", run_ids=["r0", "r1", "r2"]) as out:
        out.append(verdict(0))  # opens the file at t = 100 (writing it atomically fsyncs)
        opened = len(fsyncs)
        clock[0] = 100.4
        out.append(verdict(1))
        assert len(fsyncs) == opened
        clock[0] = 100.5
        out.append(verdict(2))
        assert len(fsyncs) == opened + 1
    assert len(fsyncs) == opened + 2  # and on close
