"""``grade_file(jobs=N)``: the same files, summary and errors as one job."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.formats.task_files import load_task_files
from judgekit.graders import parallel
from judgekit.graders.grade_file import grade_file
from judgekit.graders.parallel import Chunk, chunks, grade_in_parallel

ROOT = Path(__file__).resolve().parents[2]
SHOP_RUNS = ROOT / "examples" / "runs" / "shop.jsonl"
SHOP_TASKS = ROOT / "tasks" / "shop.yaml"


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of about two runs, so that a small file is cut into many."""
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 2000)


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_chunks_cut_at_line_ends_and_number_their_first_lines(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"aaaa\n\nbb\ncccccc\nd")
    assert list(chunks(path, size=3)) == [
        Chunk(0, 5, 1),
        Chunk(5, 9, 2),
        Chunk(9, 16, 4),
        Chunk(16, 17, 5),
    ]


@pytest.mark.parametrize("jobs", [2, 3])
def test_jobs_write_what_one_job_writes(tmp_path: Path, jobs: int) -> None:
    one = grade_file(SHOP_RUNS, SHOP_TASKS, out_dir=tmp_path / "one", baseline=tmp_path / "b1")
    many = grade_file(
        SHOP_RUNS, SHOP_TASKS, out_dir=tmp_path / "many", baseline=tmp_path / "b2", jobs=jobs
    )
    assert len(list(chunks(SHOP_RUNS))) > 5
    assert _files(tmp_path / "many") == _files(tmp_path / "one")
    assert (tmp_path / "b2").read_bytes() == (tmp_path / "b1").read_bytes()
    assert many.as_dict(k=2) == one.as_dict(k=2)
    assert [t.failures for t in many.tasks.values()] == [t.failures for t in one.tasks.values()]


def test_the_workers_grade_the_file_themselves(tmp_path: Path) -> None:
    summary = grade_in_parallel(
        SHOP_RUNS,
        load_task_files(SHOP_TASKS),
        jobs=2,
        skip_unknown=False,
        keep_failures=20,
        out_dir=tmp_path,
        baseline=None,
    )
    assert summary is not None  # not handed back to one process
    assert summary.runs == 18


def _lines() -> list[str]:
    return SHOP_RUNS.read_text(encoding="utf-8").splitlines(keepends=True)


def _error(runs: Path, out: Path, **options: object) -> str:
    with pytest.raises(DataError) as caught:
        grade_file(runs, SHOP_TASKS, out_dir=out, **options)  # type: ignore[arg-type]
    assert not out.exists() or not any(out.iterdir())  # nothing written
    return str(caught.value)


@pytest.mark.parametrize(
    "damage",
    [
        lambda lines: [*lines[:14], '{"run_id": "x", "tool_calls": 3}\n', *lines[14:]],
        lambda lines: [*lines[:14], '{"run_id": "x", "final_answer": "Done."}\n', *lines[14:]],
        lambda lines: [*lines[:3], "{not json\n", *lines[3:12], "{\n"],
        lambda lines: [*lines, lines[2]],  # a repeated run id, chunks apart
        lambda lines: [
            *lines[:9],
            lines[9].replace('"task_id": "', '"task_id": "no_'),
            *lines[10:],
        ],
        lambda lines: [*lines[:16], lines[1], "{bad\n"],  # the repeat comes first
        lambda lines: ["\n", "  \n"],
    ],
)
def test_errors_are_those_of_one_job(tmp_path: Path, damage: object) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(damage(_lines())), encoding="utf-8")  # type: ignore[operator]
    assert _error(runs, tmp_path / "many", jobs=2) == _error(runs, tmp_path / "one")


def test_skip_unknown_and_line_ends_of_any_kind(tmp_path: Path) -> None:
    lines = _lines()
    lines[4] = lines[4].replace('"task_id": "', '"task_id": "gone_')
    for name, text in [("lf", "".join(lines)), ("crlf", "".join(lines).replace("\n", "\r\n"))]:
        runs = tmp_path / f"{name}.jsonl"
        runs.write_bytes(text.encode("utf-8"))
        one = grade_file(runs, SHOP_TASKS, out_dir=tmp_path / f"{name}1", skip_unknown=True)
        many = grade_file(
            runs, SHOP_TASKS, out_dir=tmp_path / f"{name}2", skip_unknown=True, jobs=2
        )
        assert _files(tmp_path / f"{name}2") == _files(tmp_path / f"{name}1")
        assert many.as_dict() == one.as_dict()
        assert one.runs == 17
