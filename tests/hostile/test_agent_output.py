"""A subprocess agent's output and files are bounded: an agent printing without end used to
crash ``judgekit run`` with MemoryError and leave empty outputs; an agent leaving a FIFO
where judgekit reads its usage or hashes a protected file held the trial for ever. Each is
now a failed trial with its reason, and the run goes on to the next.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from judgekit.trials.process_group import OUTPUT_MAX_BYTES, run_command
from tests.conftest import REPO
from tests.processes import env

# Prints for ever on stdout ("loud"), on stderr ("shouting"), without a newline ("zeros"),
# or leaves FIFOs where judgekit reads ("fifo"); else answers "ok".
AGENT = """
import os, sys
task = sys.argv[1]
if task == "loud":
    while True:
        sys.stdout.write("la" * 5000 + "\\n")
elif task == "shouting":
    while True:
        sys.stderr.write("LA" * 5000 + "\\n")
elif task == "zeros":
    os.execvp("cat", ["cat", "/dev/zero"])
elif task == "fifo":
    os.makedirs(".judgekit", exist_ok=True)
    os.mkfifo(".judgekit/usage.json")
    os.remove("test_kept.py")
    os.mkfifo("test_kept.py")
print("ok")
"""
SUITE = """
suite: loud
tasks:
  - {id: loud, input: hello, expect_answer: [ok]}
  - {id: shouting, input: hello, expect_answer: [ok]}
  - {id: zeros, input: hello, expect_answer: [ok]}
  - {id: quiet, input: hello, expect_answer: [ok]}
  - {id: fifo, input: hello, expect_answer: [ok], workdir: repo, protected: [test_kept.py]}
"""
TOO_MUCH = "agent printed more than 16 MiB; process group killed"
# judgekit, and the agents it starts, may take this much address space: reading a
# 16 MiB-bounded output needs far less; reading without a bound meets it within seconds.
ADDRESS_SPACE = 2 * 2**30


@pytest.fixture(scope="module")
def suite_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str], float]:
    """The suite run once by ``judgekit run --agent-cmd``: its folder, process and seconds."""
    tmp_path = tmp_path_factory.mktemp("loud")
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "test_kept.py").write_text("assert True\n", encoding="utf-8")

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))

    command = f"{sys.executable} {tmp_path / 'agent.py'} {{task_id}}"
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "judgekit", "run", "--tasks", str(tmp_path / "suite.yaml"),
         "--agent-cmd", command, "--out", str(tmp_path / "out"), "--no-store", "--json", "--trials", "1"],
        cwd=REPO, env=env(tmp_path / "home"), capture_output=True, text=True, timeout=120,
        check=False, preexec_fn=limit_memory,
    )  # fmt: skip
    return tmp_path, done, time.monotonic() - started


def _lines(path: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {row["task_id"]: row for row in rows}


def test_an_agent_printing_without_end_fails_its_trial_and_the_run_goes_on(
    suite_run: tuple[Path, subprocess.CompletedProcess[str], float],
) -> None:
    tmp_path, done, seconds = suite_run
    assert (done.returncode, done.stderr) == (0, "")
    assert seconds < 60
    out = tmp_path / "out"
    runs, results = _lines(out / "runs.jsonl"), _lines(out / "results.jsonl")
    assert sorted(runs) == sorted(results) == ["fifo", "loud", "quiet", "shouting", "zeros"]
    for task in ("loud", "shouting", "zeros"):
        run = runs[task]
        assert (run["stop_reason"], run["final_answer"]) == ("error", None)
        assert run["metadata"]["stop_detail"] == TOO_MUCH
        assert "exit_code" not in run["metadata"]
        assert len(run["metadata"]["output"]) == 4000  # the last of what it printed
        assert (results[task]["passed"], results[task]["stop_reason"]) == (False, "error")
    line = "la" * 5000 + "\n"  # what "loud" prints, kept up to the bound and no further
    printed = (line * (OUTPUT_MAX_BYTES // len(line) + 1))[:OUTPUT_MAX_BYTES]
    assert runs["loud"]["metadata"]["output"] == printed[-4000:]
    assert runs["zeros"]["metadata"]["output"] == "\0" * 4000
    assert (runs["quiet"]["stop_reason"], runs["quiet"]["final_answer"]) == ("completed", "ok")
    assert results["quiet"]["passed"] is True
    summary = json.loads(done.stdout)
    assert (summary["runs"], summary["passed"]) == (5, 1)  # "fifo" made a violation


def test_fifos_an_agent_leaves_are_a_usage_error_and_a_violation(
    suite_run: tuple[Path, subprocess.CompletedProcess[str], float],
) -> None:
    """usage.json as a FIFO used to hold the trial for ever, and so did a protected file
    turned into one; neither is read now: the usage is noted as unreadable, the file as
    edited (what cannot be hashed is not the file that was protected)."""
    tmp_path, done, _ = suite_run
    assert done.returncode == 0, done.stderr
    run = _lines(tmp_path / "out" / "runs.jsonl")["fifo"]
    assert run["stop_reason"] == "completed"
    assert run["metadata"]["usage_error"] == (
        ".judgekit/usage.json: cannot be read: not a regular file (a FIFO)"
    )
    assert run["violations"] == ["edited protected file test_kept.py"]


def test_output_up_to_the_bound_is_kept_whole(tmp_path: Path) -> None:
    """Exactly OUTPUT_MAX_BYTES, split between stdout and stderr, is not too much."""
    half = OUTPUT_MAX_BYTES // 2
    script = (
        "import sys; "
        f"sys.stdout.write('o' * {half}); sys.stdout.flush(); sys.stderr.write('e' * {half})"
    )
    finished = run_command([sys.executable, "-c", script], cwd=tmp_path, timeout_s=60)
    assert (finished.exit_code, finished.output_overflowed, finished.timed_out) == (0, False, False)
    assert (finished.stdout, finished.stderr) == ("o" * half, "e" * half)
    finished = run_command(
        [sys.executable, "-c", script + "; sys.stderr.write('!')"], cwd=tmp_path, timeout_s=60
    )
    assert (finished.exit_code, finished.output_overflowed) == (None, True)
    assert len(finished.stdout) + len(finished.stderr) == OUTPUT_MAX_BYTES
