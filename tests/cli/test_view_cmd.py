"""`judgekit view` as a script starts it: the address written for it to wait for (readable by
its owner only, removed on SIGTERM), and a path that is not such a file refused."""

from __future__ import annotations

import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.view import URL_LINE


def _project(folder: Path) -> None:
    run = folder / "runs"
    run.mkdir(parents=True)
    (run / "runs.jsonl").write_text('{"run_id": "r1", "final_answer": "done"}\n')


def test_the_url_file_holds_the_address_until_sigterm(tmp_path: Path) -> None:
    _project(tmp_path)
    url_file = tmp_path / "view.url"
    process = subprocess.Popen(
        [sys.executable, "-m", "judgekit", "view", "--no-browser", "--url-file", str(url_file)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not url_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    text = url_file.read_text()
    assert URL_LINE.fullmatch(text)
    assert stat.S_IMODE(url_file.stat().st_mode) == 0o600
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=10)
    assert process.returncode == 0
    assert out.splitlines() == [
        f"judgekit view: 1 runs, 0 rubrics; open {text.strip()}",
        "(Ctrl-C stops it)",
    ]
    assert err == "judgekit view: stopped\n"
    assert not url_file.exists()


def test_a_url_file_path_holding_something_else_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path)
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["view", "--no-browser", "--url-file", str(notes)])
    assert result.exit_code == 2
    assert result.output == (
        f"judgekit: error: {notes}: already exists and is not a view's URL file: give a new "
        "path for --url-file (it is written on start and removed on exit)\n"
    )
    assert notes.read_text() == "# my notes\n"


def test_a_folder_with_no_runs_says_what_was_looked_for(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["view", str(tmp_path), "--no-browser"])
    assert result.exit_code == 2
    assert result.output == (
        f"judgekit: error: {tmp_path}: no runs here: neither {tmp_path / 'runs.jsonl'} nor "
        "any */runs.jsonl one folder down; give a runs file or a run's folder\n"
    )
