"""`judgekit grade --jobs N`: the output, the files and the errors of one job."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.graders import parallel
from tests.conftest import REPO

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
TASKS = REPO / "tasks"


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 3000)


def grade(runs: Path, out: Path, *options: str) -> tuple[int, str, str]:
    args = ["grade", str(runs), "--tasks", str(TASKS), "--out", str(out), "--no-store"]
    result = CliRunner().invoke(main, [*args, "--reasons", *options])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout.replace(str(out), "OUT"), result.stderr


def test_jobs_print_and_write_what_one_job_does(tmp_path: Path) -> None:
    one = grade(SHOP_RUNS, tmp_path / "one")
    two = grade(SHOP_RUNS, tmp_path / "two", "--jobs", "2")
    assert two == one
    assert one[0] == 0 and "wrote OUT/results.jsonl and OUT/results.csv" in one[1]
    for name in ("results.jsonl", "results.csv"):
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()


def test_a_bad_line_late_in_the_file_is_the_error_one_job_gives(tmp_path: Path) -> None:
    lines = SHOP_RUNS.read_text(encoding="utf-8").splitlines(keepends=True)
    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join([*lines, lines[0].replace('"trial": 1', '"trial": -1.5')]))
    code, out, err = grade(runs, tmp_path / "two", "--jobs", "2")
    assert (code, out) == (2, "")
    assert err == (
        f"judgekit: error: {runs}:19: trial: Input should be a valid integer, got a number "
        "with a fractional part (got -1.5)\n"
    )
    assert grade(runs, tmp_path / "one") == (code, out, err)
    assert not (tmp_path / "two" / "results.jsonl").exists()


def test_jobs_must_be_at_least_one(tmp_path: Path) -> None:
    code, _, err = grade(SHOP_RUNS, tmp_path, "--jobs", "0")
    assert code == 2
    assert "Invalid value for '--jobs': 0 is not in the range x>=1." in err
