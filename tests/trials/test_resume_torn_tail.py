"""`judgekit run --resume` reads ``runs.jsonl`` as every append-only file: the torn line of
the trial in flight when the process died is cut off with a warning naming the file and
line, and a whole last run written without its newline is kept (and ended). (A malformed
line: tests/cli/test_output_files.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from judgekit.cli import main
from tests.conftest import REPO

SHOP_TASKS = REPO / "tasks" / "shop.yaml"
TORN = "ignored a truncated last line (left by a crash while writing?)"


def run(out: Path, trials: int, *more: str) -> tuple[int, str, str]:
    args = ["run", "--tasks", str(SHOP_TASKS), "--agent", "examples.shop:agent"]
    args += ["--trials", str(trials), "--out", str(out), "--no-store", "--json", *more]
    result = CliRunner().invoke(main, args)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def run_ids(runs: Path) -> list[str]:
    return [json.loads(line)["run_id"] for line in runs.read_text().splitlines()]


def test_resume_cuts_a_torn_last_run_with_a_warning_and_keeps_a_whole_one(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    assert run(out, 2)[0] == 0
    runs = out / "runs.jsonl"
    first = runs.read_bytes()
    assert len(first.splitlines()) == 8
    # A whole last run without its newline, marked so a rerun of its trial would show.
    last = json.loads(first.splitlines()[-1])
    last["final_answer"] = "kept as written"
    kept = b"".join(first.splitlines(keepends=True)[:-1]) + json.dumps(last).encode()
    runs.write_bytes(kept)
    code, _, err = run(out, 3, "--resume")
    assert (code, err) == (0, "")
    resumed = runs.read_bytes()
    assert resumed.startswith(kept + b"\n")  # kept, ended, and the third trials after it
    assert len(run_ids(runs)) == len(set(run_ids(runs))) == 12

    # The trial in flight when the process died: cut off, said, and run again.
    torn = resumed + resumed.splitlines(keepends=True)[0][:50]
    runs.write_bytes(torn)
    code, _, err = run(out, 4, "--resume")
    assert (code, err) == (0, f"judgekit: warning: {runs}:13: {TORN}\n")
    assert runs.read_bytes().startswith(resumed)
    assert len(run_ids(runs)) == len(set(run_ids(runs))) == 16
