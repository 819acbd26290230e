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


def judged(run_id: str, **fields: object) -> Verdict:
    """A verdict of the judge the tests resume: version v1, model m, endpoint E."""
    base = verdict(0).model_copy(update={"run_id": run_id, "model": "m"})
    return base.model_copy(update={"endpoint": "http://e/v1", "input_digest": "d", **fields})


def test_every_line_not_reused_is_kept_apart_byte_for_byte_saying_why(tmp_path: Path) -> None:
    lines = [
        judged("r0", input_digest="d0"),
        judged("r1", input_digest="d1"),
        judged("r2", reason="first"),
        judged("r9"),  # a run not judged now
        judged("r3", model="openai/gpt-4o"),
        judged("r2", reason="second"),
        judged("r4", input_digest=None),  # written before verdicts recorded their content
        judged("r5", endpoint="http://other/v1"),
    ]
    raw = [line.model_dump_json().encode() + b"\n" for line in lines]
    (tmp_path / "verdicts.jsonl").write_bytes(b"".join(raw))
    ids = ["r0", "r1", "r2", "r3", "r4", "r5"]
    with VerdictsFile(
        tmp_path, rubric_version="v1", model="m", run_ids=ids, endpoint="http://e/v1"
    ) as out:
        assert sorted(out.candidates) == ["r0", "r1", "r2"]
        out.resume({"r0": "d0", "r1": "changed", "r2": "d"})
        assert [(v.run_id, v.reason) for v in out.kept.values()] == [("r0", "ok"), ("r2", "second")]
        out.finish()
    assert (tmp_path / "verdicts.jsonl").read_bytes() == raw[0] + raw[5]
    assert (tmp_path / "verdicts.earlier.jsonl").read_bytes() == b"".join(
        raw[i] for i in (3, 4, 2, 6, 7, 1)
    )
    assert out.set_apart == {
        "of runs not judged now": 1,
        "of another rubric version or model": 1,
        "superseded by a later line of their run": 1,
        "without a record of the content judged (an older verdicts file)": 1,
        "from another endpoint": 1,
        "judged other content under the same run id": 1,
    }


def test_a_rerun_after_a_crash_between_the_two_files_adds_no_line_twice(tmp_path: Path) -> None:
    earlier = [judged("r1", input_digest="old").model_dump_json().encode() + b"\n"]
    (tmp_path / "verdicts.earlier.jsonl").write_bytes(b"kept from before\n")
    for _ in range(2):  # the second time as if the first had stopped before its rename
        (tmp_path / "verdicts.jsonl").write_bytes(earlier[0])
        with VerdictsFile(tmp_path, rubric_version="v1", model="m", run_ids=["r1"]) as out:
            out.resume({"r1": "new"})
            out.finish()
        assert out.set_apart == {"from another endpoint": 1}
    assert (tmp_path / "verdicts.earlier.jsonl").read_bytes() == b"kept from before\n" + earlier[0]
    assert (tmp_path / "verdicts.jsonl").read_bytes() == b""


def test_no_cache_keeps_each_earlier_verdict_until_its_new_one_is_in(tmp_path: Path) -> None:
    lines = [judged(f"r{i}", reason="earlier").model_dump_json().encode() + b"\n" for i in (1, 2)]
    (tmp_path / "verdicts.jsonl").write_bytes(b"".join(lines))
    with VerdictsFile(
        tmp_path,
        rubric_version="v1",
        model="m",
        run_ids=["r1", "r2"],
        endpoint="http://e/v1",
        resume=False,
    ) as out:
        out.resume({"r1": "d", "r2": "d"})
        assert (out.kept, list(out.standing)) == ({}, ["r1", "r2"])
        new = judged("r1", reason="asked again")
        out.append(new)
        # Stopped here (a budget, a full disk, a kill): each run has a verdict in the file.
        assert (tmp_path / "verdicts.jsonl").read_bytes() == b"".join(lines) + (
            new.model_dump_json().encode() + b"\n"
        )
        out.finish(stopped=True)
    assert out.set_apart == {"asked again under --no-cache": 1}
    assert (tmp_path / "verdicts.jsonl").read_bytes() == lines[1] + (
        new.model_dump_json().encode() + b"\n"
    )
    assert (tmp_path / "verdicts.earlier.jsonl").read_bytes() == lines[0]


def test_a_stop_before_any_new_verdict_leaves_the_file_byte_for_byte(tmp_path: Path) -> None:
    raw = judged("r1").model_dump_json().encode() + b"\n" + judged("r9").model_dump_json().encode()
    (tmp_path / "verdicts.jsonl").write_bytes(raw)  # r9 is not judged now; no last newline
    for resume in (True, False):
        with VerdictsFile(
            tmp_path,
            rubric_version="v1",
            model="m",
            run_ids=["r1", "r2"],
            endpoint="http://e/v1",
            resume=resume,
        ) as out:
            out.resume({"r1": "d"})
            out.finish(stopped=True)
        assert (tmp_path / "verdicts.jsonl").read_bytes() == raw
        assert not (tmp_path / "verdicts.earlier.jsonl").exists()
