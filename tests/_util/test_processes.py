"""Telling a running process from one that is gone."""

from __future__ import annotations

import os
import subprocess
import sys

from judgekit._util.processes import process_is_running


def test_this_process_runs() -> None:
    assert process_is_running(os.getpid()) is True


def test_a_finished_process_does_not_run() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert process_is_running(child.pid) is False


def test_no_pid_is_zero_or_negative() -> None:
    assert process_is_running(0) is False
    assert process_is_running(-1) is False
